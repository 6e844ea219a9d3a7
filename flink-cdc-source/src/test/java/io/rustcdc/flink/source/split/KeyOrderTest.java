package io.rustcdc.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class KeyOrderTest {

    @Test
    void decimalsPlaceSpecialValuesAsPostgresDoes() {
        ValueType decimal = ValueType.of(ValueKind.DECIMAL);
        assertThat(KeyOrder.compare(decimal, SpecialValue.NEGATIVE_INFINITY, new BigDecimal("-1e100"))).isNegative();
        assertThat(KeyOrder.compare(decimal, new BigDecimal("1e100"), SpecialValue.POSITIVE_INFINITY)).isNegative();
        assertThat(KeyOrder.compare(decimal, SpecialValue.POSITIVE_INFINITY, SpecialValue.NAN)).isNegative();
        assertThat(KeyOrder.compare(decimal, new BigDecimal("1.50"), new BigDecimal("1.5"))).isZero();
    }

    @Test
    void uuidsAndBytesCompareUnsigned() {
        ValueType uuid = ValueType.of(ValueKind.UUID);
        assertThat(KeyOrder.compare(uuid, UUID.fromString("7fffffff-ffff-ffff-ffff-ffffffffffff"),
                UUID.fromString("80000000-0000-0000-0000-000000000000"))).isNegative();
        ValueType bytes = ValueType.of(ValueKind.BYTES);
        assertThat(KeyOrder.compare(bytes, new byte[] {0x7f}, new byte[] {(byte) 0x80})).isNegative();
        assertThat(KeyOrder.compare(bytes, new byte[] {}, new byte[] {0})).isNegative();
    }

    @Test
    void compositeKeysCompareColumnByColumn() {
        List<ValueType> types = List.of(ValueType.of(ValueKind.INTEGER), ValueType.of(ValueKind.BIGINT));
        assertThat(KeyOrder.compare(types, new Object[] {1L, 9L}, new Object[] {2L, 1L})).isNegative();
        assertThat(KeyOrder.compare(types, new Object[] {2L, 1L}, new Object[] {2L, 1L})).isZero();
        assertThat(KeyOrder.compare(types, new Object[] {2L, 2L}, new Object[] {2L, 1L})).isPositive();
    }

    @Test
    void textIsNotOrderedHereAndAKeylessTableNeedsAColumn() {
        assertThat(KeyOrder.isOrdered(ValueType.of(ValueKind.TEXT))).isFalse();
        assertThat(KeyOrder.isOrdered(ValueType.of(ValueKind.FLOAT64))).isFalse();
        TableId id = TableId.of("d", "s", "t");
        RowShape shape = RowShape.of("s", "t", List.of(RowShape.Column.of("name", "text", true),
                RowShape.Column.of("n", "integer", true)), List.of());
        TableDescription keyless = TableDescription.of(id, shape,
                RowType.of(List.of("name", "n"), List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.INTEGER))));
        assertThatThrownBy(() -> ChunkKey.of(keyless, null, "chunk-key")).isInstanceOf(CdcException.class)
                .hasMessageContaining("s.t has no primary key").hasMessageContaining("'chunk-key' (e.g. s.t:name)");
        assertThat(ChunkKey.of(keyless, "name", "chunk-key").splittable()).isFalse();
        assertThat(ChunkKey.of(keyless, "n", "chunk-key").splittable()).isTrue();
    }
}
