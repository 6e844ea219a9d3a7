package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/**
 * An Oracle MySQL GTID set, {@code uuid:1-500:502:tag_a:1-3,uuid2:1-7}: every transaction a reader
 * has executed, by source server and tag. A tagged GTID (MySQL 8.3+, {@code uuid:tag:n}) numbers
 * its transactions apart from the untagged ones of the same server; tags are case-insensitive and
 * kept in lower case, as the server keeps them. Intervals are kept sorted and coalesced (1-5 and 6
 * become 1-6), so the set stays small over a long stream. A reader resumes with the whole set, never
 * a single GTID: telling the server only {@code uuid:501} would make it send transactions 1 to 500
 * again. Immutable.
 */
@PublicEvolving
public final class MySqlGtidSet implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    /** A GTID tag (MySQL 8.3+): a letter or underscore, then up to 31 letters, digits or underscores. */
    private static final Pattern TAG = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,31}");
    private static final int UUID_LENGTH = 36;
    private static final MySqlGtidSet EMPTY = new MySqlGtidSet(new TreeMap<>());

    /**
     * Per source, {@code uuid} or {@code uuid:tag}, disjoint, non-adjacent intervals {start, end} in
     * ascending order. The keys' order is the server's: by uuid, the untagged transactions first, then
     * by tag.
     */
    private final TreeMap<String, List<long[]>> intervals;

    private MySqlGtidSet(TreeMap<String, List<long[]>> intervals) {
        this.intervals = intervals;
    }

    public static MySqlGtidSet empty() {
        return EMPTY;
    }

    /**
     * Parses MySQL's text form ({@code @@gtid_executed}): sets separated by commas (and the line
     * breaks MySQL prints), each a uuid followed by {@code :n} or {@code :n-m} intervals, each group of
     * intervals optionally after a {@code :tag} (MySQL 8.3+) they belong to.
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
            String source = uuid;
            boolean intervalsFollow = false;
            for (int i = 1; i < pieces.length; i++) {
                if (TAG.matcher(pieces[i]).matches()) {
                    if (intervalsFollow) {
                        throw invalid(text, "tag '" + source.substring(UUID_LENGTH + 1) + "' in '" + part
                                + "' has no transactions");
                    }
                    source = uuid + ":" + pieces[i].toLowerCase(Locale.ROOT);
                    intervalsFollow = true;
                    continue;
                }
                long[] interval = interval(text, pieces[i]);
                set = set.withInterval(source, interval[0], interval[1]);
                intervalsFollow = false;
            }
            if (intervalsFollow) {
                throw invalid(text, "tag '" + source.substring(UUID_LENGTH + 1) + "' in '" + part + "' has no transactions");
            }
        }
        return set;
    }

    private static long[] interval(String text, String piece) {
        if (!piece.matches("\\d{1,19}(-\\d{1,19})?")) {
            throw invalid(text, "'" + piece + "' is neither a transaction number or range nor a tag (a letter or "
                    + "underscore, then up to 31 letters, digits or underscores)");
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

    /**
     * This set with transaction {@code transaction} of {@code source} added: a server's {@code uuid},
     * or {@code uuid:tag} for a tagged GTID.
     */
    public MySqlGtidSet with(String source, long transaction) {
        if (transaction < 1) {
            throw new IllegalArgumentException("Transaction numbers start at 1, not " + transaction);
        }
        return withInterval(source(source), transaction, transaction);
    }

    private static String source(String source) {
        String lower = source.toLowerCase(Locale.ROOT);
        String uuid = lower.length() >= UUID_LENGTH ? lower.substring(0, UUID_LENGTH) : lower;
        if (!UUID.matcher(uuid).matches() || lower.length() > UUID_LENGTH && (lower.charAt(UUID_LENGTH) != ':'
                || !TAG.matcher(lower.substring(UUID_LENGTH + 1)).matches())) {
            throw new IllegalArgumentException("'" + source + "' is not a GTID's uuid or uuid:tag");
        }
        return lower;
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

    /** Whether transaction {@code transaction} of {@code source} ({@code uuid} or {@code uuid:tag}) is in this set. */
    public boolean contains(String source, long transaction) {
        for (long[] interval : intervals.getOrDefault(source(source), List.of())) {
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

    /**
     * The canonical text, as MySQL prints it: uuids in order, each with its untagged intervals, then its
     * tags in order with theirs, intervals ascending and coalesced.
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        String uuid = null;
        for (Map.Entry<String, List<long[]>> e : intervals.entrySet()) {
            String key = e.getKey();
            if (key.substring(0, UUID_LENGTH).equals(uuid)) {
                sb.append(key, UUID_LENGTH, key.length()); // a tag of the uuid just written
            } else {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(key);
                uuid = key.substring(0, UUID_LENGTH);
            }
            for (long[] interval : e.getValue()) {
                sb.append(':').append(interval[0]);
                if (interval[1] != interval[0]) {
                    sb.append('-').append(interval[1]);
                }
            }
        }
        return sb.toString();
    }

    /**
     * The binary form the binlog dump by GTIDs ({@code COM_BINLOG_DUMP_GTID}) takes: the number of
     * sources, then each source's uuid, number of intervals and intervals (start, end exclusive), all
     * little-endian. A set with a tag is written in the tagged form (MySQL 8.3+): the count carries the
     * format (1) in its highest and lowest byte, the count between, and each source has its tag (a
     * length, shifted left by one as MySQL's variable-length integers are, and the characters; none for
     * untagged transactions) after its uuid.
     */
    public byte[] encoded() {
        boolean tagged = intervals.keySet().stream().anyMatch(k -> k.length() > UUID_LENGTH);
        int size = 8;
        for (Map.Entry<String, List<long[]>> e : intervals.entrySet()) {
            size += 16 + (tagged ? 1 + Math.max(0, e.getKey().length() - UUID_LENGTH - 1) : 0) + 8
                    + 16 * e.getValue().size();
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        long count = intervals.size();
        out.putLong(tagged ? 1L << 56 | count << 8 | 1 : count);
        for (Map.Entry<String, List<long[]>> e : intervals.entrySet()) {
            String key = e.getKey();
            String hex = key.substring(0, UUID_LENGTH).replace("-", "");
            for (int i = 0; i < 32; i += 2) {
                out.put((byte) Integer.parseInt(hex.substring(i, i + 2), 16));
            }
            if (tagged) {
                String tag = key.length() > UUID_LENGTH ? key.substring(UUID_LENGTH + 1) : "";
                out.put((byte) (tag.length() << 1)); // at most 32: one byte
                out.put(tag.getBytes(StandardCharsets.US_ASCII));
            }
            out.putLong(e.getValue().size());
            for (long[] interval : e.getValue()) {
                out.putLong(interval[0]);
                out.putLong(interval[1] + 1);
            }
        }
        return out.array();
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
