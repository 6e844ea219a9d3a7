package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The exact changelog of a table snapshotted with a row filter on its integer key {@code id} (a {@link
 * JsonChangelog} of it, keyed {@code id|}): the rows the filter selects are read once, then every change
 * (a strict changelog ending in exactly those rows of the table); rows outside it are never read, and
 * their changes after their chunk are emitted, so what the changelog holds of them is what the table
 * holds, and its only violations are updates and deletes of rows outside the filter, which downstream
 * never saw.
 */
public final class KeyFilterOracle {
    private static final Pattern NEVER_EMITTED = Pattern.compile("(update|delete) of a row never emitted: (\\w+) (.*)");

    private KeyFilterOracle() {}

    /** The rows of {@code rows} (by key text {@code id|}) whose id {@code filter} selects. */
    public static Map<String, String> matching(Map<String, String> rows, IntPredicate filter) {
        Map<String, String> m = new TreeMap<>();
        rows.forEach((k, v) -> {
            if (filter.test(id(k))) {
                m.put(k, v);
            }
        });
        return m;
    }

    /** Of {@code table}'s rows the filter selects, exactly the database's; of the others, only rows it holds as they are. */
    public static void assertExact(JsonChangelog changelog, String table, Map<String, String> rows, IntPredicate filter) {
        assertThat(matching(changelog.rows(table), filter)).as(changelog.differences(table, matching(rows, filter)))
                .isEqualTo(matching(rows, filter));
        changelog.rows(table).forEach((k, v) -> assertThat(rows.get(k)).as(table + " " + k).isEqualTo(v));
    }

    /**
     * Whether the changelog of {@code table} has caught up with {@code rows} (the table's rows after the
     * writers stopped), as {@link #assertExact} checks it.
     */
    public static boolean converged(JsonChangelog changelog, String table, Map<String, String> rows, IntPredicate filter) {
        return matching(changelog.rows(table), filter).equals(matching(rows, filter))
                && changelog.rows(table).entrySet().stream().allMatch(e -> e.getValue().equals(rows.get(e.getKey())));
    }

    /** Whether {@code violation} is an update or delete of a {@code table} row {@code filter} does not select. */
    public static boolean outside(String violation, String table, IntPredicate filter) {
        Matcher m = NEVER_EMITTED.matcher(violation);
        return m.matches() && m.group(2).equals(table) && !filter.test(id(m.group(3)));
    }

    private static int id(String key) {
        return Integer.parseInt(key.substring(0, key.indexOf('|')));
    }
}
