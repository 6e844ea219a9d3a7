package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * uniqueidentifier order: the sequence Microsoft documents for SQL Server ("Comparing GUID and
 * uniqueidentifier values": the last group most significant, then the fourth, then the third, second
 * and first groups byte by byte as stored). The randomized test prints its seed.
 */
class SqlServerKeyOrderTest {
    private static final ValueType UUID_TYPE = ValueType.of(ValueKind.UUID);

    @Test
    void uniqueidentifiersOrderByTheirLastGroupFirst() {
        // each differs from the previous in one byte, from the least significant to the most
        List<UUID> ascending = List.of(
                UUID.fromString("00000000-0000-0000-0000-000000000000"),
                UUID.fromString("01000000-0000-0000-0000-000000000000"),
                UUID.fromString("00010000-0000-0000-0000-000000000000"),
                UUID.fromString("00000100-0000-0000-0000-000000000000"),
                UUID.fromString("00000001-0000-0000-0000-000000000000"),
                UUID.fromString("00000000-0100-0000-0000-000000000000"),
                UUID.fromString("00000000-0001-0000-0000-000000000000"),
                UUID.fromString("00000000-0000-0100-0000-000000000000"),
                UUID.fromString("00000000-0000-0001-0000-000000000000"),
                UUID.fromString("00000000-0000-0000-0001-000000000000"),
                UUID.fromString("00000000-0000-0000-0100-000000000000"),
                UUID.fromString("00000000-0000-0000-0000-000000000001"),
                UUID.fromString("00000000-0000-0000-0000-000000000100"),
                UUID.fromString("00000000-0000-0000-0000-010000000000"));
        List<UUID> shuffled = new ArrayList<>(ascending);
        Collections.shuffle(shuffled, new Random(3));
        shuffled.sort((a, b) -> SqlServerKeyOrder.INSTANCE.compare(UUID_TYPE, a, b));
        assertThat(shuffled).isEqualTo(ascending);
    }

    /** A total order consistent with equality, agreeing with a byte-sequence comparison written independently. */
    @Test
    void randomUniqueidentifiersOrderAsTheirRearrangedBytes() {
        long seed = Long.getLong("rustcdc.sqlserver.seed", System.nanoTime());
        System.out.println("SqlServerKeyOrderTest seed " + seed + " (replay with -Drustcdc.sqlserver.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            UUID a = new UUID(random.nextLong() & (random.nextBoolean() ? -1L : 0xFFL), random.nextLong());
            UUID b = random.nextInt(8) == 0 ? a : new UUID(a.getMostSignificantBits() ^ (random.nextBoolean() ? 0
                    : 1L << random.nextInt(64)), a.getLeastSignificantBits() ^ (1L << random.nextInt(64)));
            assertThat(Integer.signum(SqlServerKeyOrder.INSTANCE.compare(UUID_TYPE, a, b))).as("seed %d: %s %s", seed, a, b)
                    .isEqualTo(Integer.signum(sortKey(a).compareTo(sortKey(b))));
        }
    }

    /** The display text regrouped most significant first: EEEEEEEEEEEE DDDD then C, B, A with their bytes reversed. */
    private static String sortKey(UUID u) {
        String s = u.toString().replace("-", "");
        String a = s.substring(0, 8);
        String b = s.substring(8, 12);
        String c = s.substring(12, 16);
        return s.substring(20) + s.substring(16, 20) + reverseBytes(c) + reverseBytes(b) + reverseBytes(a);
    }

    private static String reverseBytes(String hex) {
        StringBuilder out = new StringBuilder();
        for (int i = hex.length() - 2; i >= 0; i -= 2) {
            out.append(hex, i, i + 2);
        }
        return out.toString();
    }

    @Test
    void ordersOnlyTheKindsItReproduces() {
        assertThat(SqlServerKeyOrder.INSTANCE.orders(ValueType.of(ValueKind.TEXT))).isFalse();
        assertThat(SqlServerKeyOrder.INSTANCE.orders(ValueType.of(ValueKind.BYTES))).isFalse();
        assertThat(SqlServerKeyOrder.INSTANCE.orders(ValueType.of(ValueKind.FLOAT64))).isFalse();
        assertThat(SqlServerKeyOrder.INSTANCE.orders(ValueType.of(ValueKind.BIGINT))).isTrue();
        assertThat(SqlServerKeyOrder.INSTANCE.compare(ValueType.of(ValueKind.BIGINT), null, 1L)).isNegative();
    }
}
