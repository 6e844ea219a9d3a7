package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * Checks a connector's {@link KeyOrder} against its server: for every two rows, the order's
 * comparison of their values (decoded by the connector) must have the sign of the difference of
 * their {@code DENSE_RANK() OVER (ORDER BY column)} (the server's order, ties included).
 */
public final class KeyOrderOracle {
    private KeyOrderOracle() {}

    /**
     * @param values each row's value of the column as the connector decoded it, by row id
     * @param ranks each row's dense rank in the server's {@code ORDER BY} of the column, by row id
     * @return the number of pairs compared
     * @throws AssertionError naming the column, both rows and values, and the seed, at the first disagreement
     */
    public static int check(KeyOrder order, String column, ValueType type, Map<Integer, Object> values,
            Map<Integer, Long> ranks, long seed) {
        return check(order, column, type, null, values, ranks, seed);
    }

    /**
     * As {@link #check(KeyOrder, String, ValueType, Map, Map, long)}, for a column whose values
     * {@code collation} orders (as the connector's description names it; null for none).
     */
    public static int check(KeyOrder order, String column, ValueType type, @Nullable String collation,
            Map<Integer, Object> values, Map<Integer, Long> ranks, long seed) {
        if (!values.keySet().equals(ranks.keySet())) {
            throw new AssertionError("Column " + column + ": the connector read rows " + values.keySet()
                    + " but the server ranked " + ranks.keySet() + " (seed " + seed + ")");
        }
        if (!order.orders(type, collation)) {
            throw new AssertionError("Column " + column + " of type " + type + " and collation " + collation
                    + " is not ordered by " + order);
        }
        List<Integer> ids = new ArrayList<>(values.keySet());
        int pairs = 0;
        for (int a : ids) {
            for (int b : ids) {
                int ours = Integer.signum(order.compare(type, collation, values.get(a), values.get(b)));
                int server = Long.signum(ranks.get(a) - ranks.get(b));
                if (ours != server) {
                    throw new AssertionError("Column " + column + " (" + type + "): " + order + " compares row " + a
                            + " (" + text(values.get(a)) + ") with row " + b + " (" + text(values.get(b)) + ") as "
                            + ours + ", the server's ORDER BY as " + server + " (seed " + seed + ")");
                }
                pairs++;
            }
        }
        return pairs;
    }

    private static String text(Object v) {
        if (v instanceof String) {
            return "'" + ((String) v).codePoints().mapToObj(c -> c >= 0x20 && c < 0x7f ? Character.toString(c)
                    : String.format("\\u{%x}", c)).collect(java.util.stream.Collectors.joining()) + "'";
        }
        return v instanceof byte[] ? "0x" + HexFormat.of().formatHex((byte[]) v) : String.valueOf(v);
    }

    /** Replays a run of a key-order test: {@code -Drustcdc.keyorder.seed=N}. */
    public static final String SEED_PROPERTY = "rustcdc.keyorder.seed";

    /** The seed of a randomized key-order test: the one {@link #SEED_PROPERTY} gives, else a new one; printed. */
    public static long seed(Class<?> test) {
        String given = System.getProperty(SEED_PROPERTY);
        long seed = given != null ? Long.parseLong(given) : System.nanoTime();
        System.out.println(test.getSimpleName() + " seed " + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed + ")");
        return seed;
    }
}
