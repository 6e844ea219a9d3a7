package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigDecimal;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Examples of PostgreSQL's key order; PostgresKeyOrderITCase checks it against the server. */
class PostgresKeyOrderTest {
    private static final PostgresKeyOrder ORDER = PostgresKeyOrder.INSTANCE;

    @Test
    void decimalsPlaceSpecialValuesAsPostgresDoes() {
        ValueType decimal = ValueType.of(ValueKind.DECIMAL);
        assertThat(ORDER.compare(decimal, SpecialValue.NEGATIVE_INFINITY, new BigDecimal("-1e100"))).isNegative();
        assertThat(ORDER.compare(decimal, new BigDecimal("1e100"), SpecialValue.POSITIVE_INFINITY)).isNegative();
        assertThat(ORDER.compare(decimal, SpecialValue.POSITIVE_INFINITY, SpecialValue.NAN)).isNegative();
        assertThat(ORDER.compare(decimal, new BigDecimal("1.50"), new BigDecimal("1.5"))).isZero();
    }

    @Test
    void uuidsAndBytesCompareUnsignedAndNullsSortLast() {
        ValueType uuid = ValueType.of(ValueKind.UUID);
        assertThat(ORDER.compare(uuid, UUID.fromString("7fffffff-ffff-ffff-ffff-ffffffffffff"),
                UUID.fromString("80000000-0000-0000-0000-000000000000"))).isNegative();
        ValueType bytes = ValueType.of(ValueKind.BYTES);
        assertThat(ORDER.compare(bytes, new byte[] {0x7f}, new byte[] {(byte) 0x80})).isNegative();
        assertThat(ORDER.compare(bytes, new byte[] {}, new byte[] {0})).isNegative();
        assertThat(ORDER.compare(bytes, null, new byte[] {(byte) 0xff})).isPositive();
    }

    @Test
    void textOfAByteComparingCollationSortsByCodePoint() {
        ValueType text = ValueType.of(ValueKind.TEXT);
        assertThat(ORDER.orders(text, PostgresKeyOrder.CODE_POINTS)).isTrue();
        assertThat(ORDER.orders(text, PostgresKeyOrder.CODE_POINTS_BLANK_PADDED)).isTrue();
        assertThat(ORDER.orders(text, "\"en_US.utf8\" (libc en_US.utf8)")).isFalse();
        assertThat(ORDER.compare(text, PostgresKeyOrder.CODE_POINTS, "B", "a")).isNegative();
        assertThat(ORDER.compare(text, PostgresKeyOrder.CODE_POINTS, "\uFFFF", "\uD83D\uDE00")).isNegative();
        assertThat(ORDER.compare(text, PostgresKeyOrder.CODE_POINTS, "a ", "a")).as("text keeps its spaces").isPositive();
        assertThat(ORDER.compare(text, PostgresKeyOrder.CODE_POINTS, "a\t", "a")).isPositive();
        // character(n) ignores trailing spaces only, then compares as text does
        assertThat(ORDER.compare(text, PostgresKeyOrder.CODE_POINTS_BLANK_PADDED, "a  ", "a")).isZero();
        assertThat(ORDER.compare(text, PostgresKeyOrder.CODE_POINTS_BLANK_PADDED, "a\t", "a ")).isPositive();
        assertThat(ORDER.compare(text, PostgresKeyOrder.CODE_POINTS, null, "a")).as("nulls last").isPositive();
        assertThatThrownBy(() -> ORDER.compare(text, null, "a", "b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void textAndFloatsAreNotOrderedHere() {
        assertThat(ORDER.orders(ValueType.of(ValueKind.TEXT))).as("a collation's order").isFalse();
        assertThat(ORDER.orders(ValueType.of(ValueKind.TEXT), null)).as("no collation named").isFalse();
        assertThat(ORDER.orders(ValueType.of(ValueKind.FLOAT64))).isFalse();
        assertThatThrownBy(() -> ORDER.compare(ValueType.of(ValueKind.TEXT), "a", "b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TEXT");
    }
}
