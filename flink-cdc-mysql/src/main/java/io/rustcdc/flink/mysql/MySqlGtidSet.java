package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/**
 * An Oracle MySQL GTID set, {@code uuid:1-500:502,uuid2:1-7}: every transaction a reader has
 * executed, by source server. Intervals are kept sorted and coalesced (1-5 and 6 become 1-6), so
 * the set stays small over a long stream. A reader resumes with the whole set, never a single GTID:
 * telling the server only {@code uuid:501} would make it send transactions 1 to 500 again.
 * Immutable.
 */
@PublicEvolving
public final class MySqlGtidSet implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final MySqlGtidSet EMPTY = new MySqlGtidSet(new TreeMap<>());

    /** Per source uuid, disjoint, non-adjacent intervals {start, end} in ascending order. */
    private final TreeMap<String, List<long[]>> intervals;

    private MySqlGtidSet(TreeMap<String, List<long[]>> intervals) {
        this.intervals = intervals;
    }

    public static MySqlGtidSet empty() {
        return EMPTY;
    }

    /**
     * Parses MySQL's text form ({@code @@gtid_executed}): sets separated by commas (and the line
     * breaks MySQL prints), each a uuid followed by {@code :n} or {@code :n-m} intervals.
     */
    public static MySqlGtidSet parse(String text) {
        String compact = text.replaceAll("\\s", "");
        MySqlGtidSet set = EMPTY;
        if (compact.isEmpty()) {
            return set;
        }
        for (String part : compact.split(",", -1)) {
            String[] pieces = part.split(":", -1);
            String uuid = pieces[0].toLowerCase(Locale.ROOT);
            if (!UUID.matcher(uuid).matches() || pieces.length < 2) {
                throw invalid(text, "'" + part + "' is not uuid:interval[:interval...]");
            }
            for (int i = 1; i < pieces.length; i++) {
                long[] interval = interval(text, pieces[i]);
                set = set.withInterval(uuid, interval[0], interval[1]);
            }
        }
        return set;
    }

    private static long[] interval(String text, String piece) {
        if (!piece.matches("\\d{1,19}(-\\d{1,19})?")) {
            throw invalid(text, "'" + piece + "' is not a transaction number or range"
                    + (piece.matches("[A-Za-z_][A-Za-z0-9_]*") ? " (tagged GTIDs of MySQL 8.3+ are not supported)" : ""));
        }
        int dash = piece.indexOf('-');
        long start = Long.parseLong(dash < 0 ? piece : piece.substring(0, dash));
        long end = dash < 0 ? start : Long.parseLong(piece.substring(dash + 1));
        if (start < 1 || end < start) {
            throw invalid(text, "'" + piece + "' is not a range of transaction numbers from 1 up");
        }
        return new long[] {start, end};
    }

    private static CdcException invalid(String text, String why) {
        String hint = text.matches("\\s*\\d+-\\d+-\\d+(\\s*,\\s*\\d+-\\d+-\\d+)*\\s*")
                ? " It is a MariaDB GTID position: read MariaDB with ServerFlavor.MARIADB ('rustcdc-mariadb')." : "";
        return new CdcException(CdcException.Kind.CONFIGURATION, "Not a MySQL GTID set: '" + text + "': " + why + "."
                + hint);
    }

    /** This set with transaction {@code transaction} of server {@code uuid} added. */
    public MySqlGtidSet with(String uuid, long transaction) {
        if (transaction < 1) {
            throw new IllegalArgumentException("Transaction numbers start at 1, not " + transaction);
        }
        return withInterval(uuid.toLowerCase(Locale.ROOT), transaction, transaction);
    }

    private MySqlGtidSet withInterval(String uuid, long start, long end) {
        List<long[]> old = intervals.getOrDefault(uuid, List.of());
        List<long[]> merged = new ArrayList<>(old.size() + 1);
        long s = start;
        long e = end;
        int i = 0;
        while (i < old.size() && old.get(i)[1] < s - 1) { // entirely before, not adjacent
            merged.add(old.get(i++));
        }
        while (i < old.size() && old.get(i)[0] <= e + 1) { // overlapping or adjacent: absorb
            s = Math.min(s, old.get(i)[0]);
            e = Math.max(e, old.get(i)[1]);
            i++;
        }
        merged.add(new long[] {s, e});
        while (i < old.size()) {
            merged.add(old.get(i++));
        }
        TreeMap<String, List<long[]>> copy = new TreeMap<>(intervals);
        copy.put(uuid, Collections.unmodifiableList(merged));
        return new MySqlGtidSet(copy);
    }

    public boolean contains(String uuid, long transaction) {
        for (long[] interval : intervals.getOrDefault(uuid.toLowerCase(Locale.ROOT), List.of())) {
            if (transaction >= interval[0] && transaction <= interval[1]) {
                return true;
            }
        }
        return false;
    }

    public boolean isEmpty() {
        return intervals.isEmpty();
    }

    /**
     * Whether every transaction of this set is in {@code other}. Within one replication history a
     * position's set grows with it, so this orders positions of different servers of that history.
     */
    public boolean isSubsetOf(MySqlGtidSet other) {
        for (Map.Entry<String, List<long[]>> e : intervals.entrySet()) {
            List<long[]> theirs = other.intervals.get(e.getKey());
            if (theirs == null) {
                return false;
            }
            int j = 0;
            for (long[] mine : e.getValue()) {
                // theirs are coalesced: an interval of this set lies inside one of them or is not covered
                while (j < theirs.size() && theirs.get(j)[1] < mine[0]) {
                    j++;
                }
                if (j == theirs.size() || theirs.get(j)[0] > mine[0] || theirs.get(j)[1] < mine[1]) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * How many transactions of this set {@code other} lacks: those of a server's executed set that a
     * position's set lacks are the transactions the position is behind by. {@link Long#MAX_VALUE} when
     * there are more.
     */
    long countNotIn(MySqlGtidSet other) {
        long count = 0;
        for (Map.Entry<String, List<long[]>> e : intervals.entrySet()) {
            List<long[]> theirs = other.intervals.getOrDefault(e.getKey(), List.of());
            for (long[] mine : e.getValue()) {
                long missing = mine[1] - mine[0] + 1; // numbers start at 1: no overflow
                for (long[] t : theirs) { // disjoint: their overlaps with this interval add up to at most its length
                    long overlap = Math.min(mine[1], t[1]) - Math.max(mine[0], t[0]) + 1;
                    if (overlap > 0) {
                        missing -= overlap;
                    }
                }
                count = count + missing < 0 ? Long.MAX_VALUE : count + missing;
            }
        }
        return count;
    }

    /** The canonical text: uuids in order, intervals ascending and coalesced, as MySQL accepts it. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<long[]>> e : intervals.entrySet()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e.getKey());
            for (long[] interval : e.getValue()) {
                sb.append(':').append(interval[0]);
                if (interval[1] != interval[0]) {
                    sb.append('-').append(interval[1]);
                }
            }
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MySqlGtidSet && toString().equals(o.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }
}
