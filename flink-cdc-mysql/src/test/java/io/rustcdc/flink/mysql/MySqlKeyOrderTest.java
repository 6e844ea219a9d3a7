package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Examples of MySQL's key order; MySqlKeyOrderITCase checks it against the server. */
class MySqlKeyOrderTest {
    private static final MySqlKeyOrder ORDER = MySqlKeyOrder.INSTANCE;

    @Test
    void aKeysOrderIsKeptByAnIntegersWidthAndByACollationsOtherNameOnly() {
        ValueType text = ValueType.of(ValueKind.TEXT);
        assertThat(ORDER.sameOrder(text, "utf8_bin", text, "utf8mb3_bin")).isTrue();
        assertThat(ORDER.sameOrder(text, "utf8_general_ci on CHAR", text, "utf8mb3_general_ci on CHAR")).isTrue();
        assertThat(ORDER.sameOrder(text, "utf8mb3_bin", text, "utf8mb4_bin")).isFalse();
        assertThat(ORDER.sameOrder(text, "utf8mb4_general_ci", text, "utf8mb4_bin")).isFalse();
        assertThat(ORDER.sameOrder(ValueType.of(ValueKind.INTEGER), null, ValueType.of(ValueKind.BIGINT), null)).isTrue();
        assertThat(ORDER.sameOrder(ValueType.of(ValueKind.BIGINT), null, ValueType.of(ValueKind.UNSIGNED_BIGINT), null))
                .isFalse();
        assertThat(ORDER.sameOrder(ValueType.of(ValueKind.INTEGER), null, text, "utf8mb4_bin")).isFalse();
    }

    @Test
    void zeroDatesSortAsTheServerComparesTheirFields() {
        ValueType date = ValueType.of(ValueKind.DATE);
        assertThat(ORDER.compare(date, SpecialValue.zeroDate("0000-00-00"), LocalDate.of(1000, 1, 1))).isNegative();
        assertThat(ORDER.compare(date, LocalDate.of(2023, 12, 31), SpecialValue.zeroDate("2024-00-00"))).isNegative();
        assertThat(ORDER.compare(date, SpecialValue.zeroDate("2024-00-00"), LocalDate.of(2024, 1, 1))).isNegative();
        assertThat(ORDER.compare(date, LocalDate.of(2024, 2, 29), SpecialValue.zeroDate("2024-02-30"))).isNegative();
        ValueType datetime = ValueType.temporal(ValueKind.TIMESTAMP, 6);
        assertThat(ORDER.compare(datetime, SpecialValue.zeroDate("2024-02-30 10:00:00.000001"),
                SpecialValue.zeroDate("2024-02-30 10:00:00"))).isPositive();
        assertThat(ORDER.compare(datetime, LocalDateTime.of(2024, 3, 1, 0, 0),
                SpecialValue.zeroDate("2024-02-30 23:59:59.999999"))).isPositive();
        ValueType timestamp = ValueType.temporal(ValueKind.TIMESTAMP_TZ, 0);
        assertThat(ORDER.compare(timestamp, SpecialValue.zeroDate("0000-00-00 00:00:00"), Instant.ofEpochSecond(1)))
                .isNegative();
    }

    @Test
    void unsignedBigintsAndBinariesAndNullsFirst() {
        ValueType unsigned = ValueType.of(ValueKind.UNSIGNED_BIGINT);
        assertThat(ORDER.compare(unsigned, new BigInteger("9223372036854775807"), new BigInteger("18446744073709551615")))
                .isNegative();
        ValueType bytes = ValueType.of(ValueKind.BYTES);
        assertThat(ORDER.compare(bytes, new byte[] {1}, new byte[] {1, 0})).isNegative();
        assertThat(ORDER.compare(bytes, new byte[] {0x7f}, new byte[] {(byte) 0x80})).isNegative();
        assertThat(ORDER.compare(bytes, null, new byte[0])).as("MySQL sorts NULL first").isNegative();
    }

    @Test
    void textOfBinaryUtf8CollationsSortsByCodePointPaddedOrNot() {
        ValueType text = ValueType.of(ValueKind.TEXT);
        String padSpace = MySqlKeyOrder.collationName("varchar", "utf8mb4_bin");
        String noPad = MySqlKeyOrder.collationName("varchar", "utf8mb4_0900_bin");
        assertThat(ORDER.orders(text, padSpace)).isTrue();
        assertThat(ORDER.orders(text, noPad)).isTrue();
        assertThat(ORDER.orders(text, MySqlKeyOrder.collationName("char", "utf8mb4_bin"))).isTrue();
        assertThat(ORDER.orders(text, MySqlKeyOrder.collationName("char", "utf8mb4_0900_bin")))
                .as("CHAR loses its trailing spaces, which NO PAD compares").isFalse();
        assertThat(ORDER.orders(text, MySqlKeyOrder.collationName("varchar", "utf8mb4_general_ci"))).isFalse();
        assertThat(ORDER.orders(text, MySqlKeyOrder.collationName("varchar", "latin1_bin")))
                .as("latin1's bytes do not sort as code points").isFalse();
        assertThat(ORDER.orders(text, MySqlKeyOrder.collationName("enum", "utf8mb4_bin"))).as("by index").isFalse();
        assertThat(ORDER.compare(text, padSpace, "a", "a  ")).isZero();
        assertThat(ORDER.compare(text, padSpace, "a\t", "a")).isNegative();
        assertThat(ORDER.compare(text, noPad, "a", "a ")).isNegative();
        assertThat(ORDER.compare(text, noPad, "\uFFFF", "\uD83D\uDE00")).isNegative();
        assertThat(ORDER.compare(text, padSpace, null, "")).as("nulls first").isNegative();
    }

    /** Text the order does not compare is placed by the server, unless the server sorts it otherwise than it compares it. */
    @Test
    void textOfOtherCollationsIsPlacedByTheServer() {
        ValueType text = ValueType.of(ValueKind.TEXT);
        for (String type : List.of("varchar", "char", "text", "mediumtext")) {
            for (String collation : List.of("utf8mb4_general_ci", "utf8mb4_0900_ai_ci", "utf8mb4_uca1400_ai_ci",
                    "latin1_swedish_ci", "latin1_bin")) {
                assertThat(ORDER.placedByServer(text, MySqlKeyOrder.collationName(type, collation)))
                        .as(type + " " + collation).isTrue();
            }
        }
        assertThat(ORDER.placedByServer(text, MySqlKeyOrder.collationName("char", "utf8mb4_0900_bin")))
                .as("CHAR of a NO PAD binary collation").isTrue();
        assertThat(ORDER.placedByServer(text, MySqlKeyOrder.collationName("varchar", "utf8mb4_bin")))
                .as("ordered here").isFalse();
        assertThat(ORDER.placedByServer(text, MySqlKeyOrder.collationName("enum", "utf8mb4_general_ci")))
                .as("sorted by member number").isFalse();
        assertThat(ORDER.placedByServer(text, MySqlKeyOrder.collationName("set", "utf8mb4_general_ci"))).isFalse();
        assertThat(ORDER.placedByServer(text, MySqlKeyOrder.collationName("uuid", null))).isFalse();
        assertThat(ORDER.placedByServer(text, null)).isFalse();
        assertThat(ORDER.placedByServer(ValueType.of(ValueKind.BIGINT), null)).isFalse();
    }

    /** The order MariaDB 11.4 gave these UUIDs (ORDER BY of a UUID primary key and u < v alike). */
    @Test
    void mariaDbUuidsSortAsTheServerStoresThem() {
        ValueType text = ValueType.of(ValueKind.TEXT);
        String uuid = MySqlKeyOrder.collationName("uuid", null);
        assertThat(uuid).isEqualTo(MySqlKeyOrder.UUID);
        assertThat(ORDER.orders(text, uuid)).isTrue();
        String[] ascending = {
            "00000000-0000-0000-0000-000000000000",
            "00000000-0000-0000-8000-000000000001", // version byte 0: as written
            "00000000-0000-1000-0000-000000000000", // variant 0: as written
            "00000000-0000-1000-7f00-000000000000",
            "00000000-0000-6000-8000-000000000000", // version 6: as written
            "00000000-0000-0100-8000-000000000002", // version byte 0x01 and the variant bit: node first
            "00000000-0000-1000-8000-000000000002", // same node, clock: by time high
            "ffffffff-ffff-1000-8000-000000000002",
            "00000000-0000-1001-8000-000000000002",
            "00000000-0000-5f00-8000-000000000003",
            "01000000-0000-0000-0000-000000000000",
            "10000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-7fff-bfff-000000000000",
            "00000000-0000-1000-8000-ffffffffffff", // swapped, node ff..: after every unswapped one below ff
            "ffffffff-ffff-ffff-ffff-ffffffffffff"};
        for (int i = 0; i < ascending.length; i++) {
            for (int j = 0; j < ascending.length; j++) {
                assertThat(Integer.signum(ORDER.compare(text, uuid, ascending[i], ascending[j])))
                        .as("%s against %s", ascending[i], ascending[j]).isEqualTo(Integer.compare(i, j));
            }
        }
        assertThat(ORDER.compare(text, uuid, null, ascending[0])).as("nulls first").isNegative();
        assertThat(ORDER.orders(text, MySqlKeyOrder.collationName("varchar", null))).as("no collation").isFalse();
    }

    @Test
    void textAndUuidsAreNotOrderedHere() {
        assertThat(ORDER.orders(ValueType.of(ValueKind.TEXT))).isFalse();
        assertThat(ORDER.orders(ValueType.of(ValueKind.TEXT), null)).isFalse();
        assertThat(ORDER.orders(ValueType.of(ValueKind.UUID))).isFalse();
        assertThat(ORDER.orders(ValueType.of(ValueKind.FLOAT64))).isFalse();
    }
}
