package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.io.Serializable;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A MariaDB GTID position, {@code 0-1-12345,1-2-77}: per replication domain, the last transaction
 * executed, as {@code domain-server-sequence}. Unlike MySQL's sets it holds one GTID per domain;
 * a newer transaction of a domain replaces the older. Sequence numbers are unsigned 64-bit.
 * Immutable.
 */
@PublicEvolving
public final class MariaDbGtidPosition implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final MariaDbGtidPosition EMPTY = new MariaDbGtidPosition(new TreeMap<>());

    /** domain to {server, sequence}. */
    private final TreeMap<Long, long[]> domains;

    private MariaDbGtidPosition(TreeMap<Long, long[]> domains) {
        this.domains = domains;
    }

    public static MariaDbGtidPosition empty() {
        return EMPTY;
    }

    /** Parses MariaDB's text form ({@code @@gtid_binlog_pos}, {@code @@gtid_slave_pos}). */
    public static MariaDbGtidPosition parse(String text) {
        String compact = text.replaceAll("\\s", "");
        MariaDbGtidPosition position = EMPTY;
        if (compact.isEmpty()) {
            return position;
        }
        for (String gtid : compact.split(",", -1)) {
            String[] parts = gtid.split("-", -1);
            if (parts.length != 3 || !gtid.matches("\\d{1,10}-\\d{1,10}-\\d{1,20}")) {
                throw invalid(text, "'" + gtid + "' is not domain-server-sequence");
            }
            long domain = Long.parseLong(parts[0]);
            long server = Long.parseLong(parts[1]);
            if (domain > 0xFFFF_FFFFL || server > 0xFFFF_FFFFL) {
                throw invalid(text, "'" + gtid + "' has a domain or server id beyond 4294967295");
            }
            long sequence;
            try {
                sequence = Long.parseUnsignedLong(parts[2]);
            } catch (NumberFormatException e) {
                throw invalid(text, "'" + gtid + "' has a sequence number beyond 18446744073709551615");
            }
            if (position.domains.containsKey(domain)) {
                throw invalid(text, "domain " + domain + " appears twice");
            }
            position = position.with(domain, server, sequence);
        }
        return position;
    }

    private static CdcException invalid(String text, String why) {
        String hint = text.contains(":")
                ? " It is a MySQL GTID set: read Oracle MySQL with ServerFlavor.MYSQL ('rustcdc-mysql')." : "";
        return new CdcException(CdcException.Kind.CONFIGURATION, "Not a MariaDB GTID position: '" + text + "': "
                + why + "." + hint);
    }

    /** This position with transaction {@code domain-server-sequence} executed: it replaces the domain's GTID. */
    public MariaDbGtidPosition with(long domain, long server, long sequence) {
        TreeMap<Long, long[]> copy = new TreeMap<>(domains);
        copy.put(domain, new long[] {server, sequence});
        return new MariaDbGtidPosition(copy);
    }

    /** The replication domains this position holds a GTID of, ascending. */
    public Set<Long> domains() {
        return Collections.unmodifiableSet(domains.keySet());
    }

    /** The sequence number held for {@code domain} (unsigned: compare with {@link Long#compareUnsigned}). */
    public long sequence(long domain) {
        return domains.get(domain)[1];
    }

    /** The GTID held for {@code domain}, as {@code domain-server-sequence}, or null. */
    public String gtidOf(long domain) {
        long[] gtid = domains.get(domain);
        return gtid == null ? null : domain + "-" + gtid[0] + "-" + Long.toUnsignedString(gtid[1]);
    }

    /**
     * How this position orders against {@code other} within one replication history: negative when
     * no domain is further here and one is behind, positive for the reverse, zero when every domain
     * is at the same sequence, and null when some domain is further on each side (the positions come
     * from histories that diverged). A domain a position does not hold is behind any sequence of it.
     */
    @Nullable
    public Integer compareInHistory(MariaDbGtidPosition other) {
        boolean behind = false;
        boolean ahead = false;
        TreeSet<Long> all = new TreeSet<>(domains.keySet());
        all.addAll(other.domains.keySet());
        for (long domain : all) {
            long[] mine = domains.get(domain);
            long[] theirs = other.domains.get(domain);
            int c = mine == null ? (theirs == null ? 0 : -1)
                    : theirs == null ? 1 : Long.compareUnsigned(mine[1], theirs[1]);
            behind |= c < 0;
            ahead |= c > 0;
        }
        if (behind && ahead) {
            return null;
        }
        return behind ? -1 : ahead ? 1 : 0;
    }

    /**
     * How many transactions this position is behind {@code server}'s (its {@code gtid_binlog_pos}), counted
     * by sequence numbers: per domain, the server's sequence less this position's (0 for a domain this
     * position does not hold), where the server's is further. Exact while each domain's numbers go up by
     * one per transaction, as MariaDB assigns them unless a session sets {@code gtid_seq_no}. {@link
     * Long#MAX_VALUE} when there are more.
     */
    long sequencesBehind(MariaDbGtidPosition server) {
        long count = 0;
        for (Map.Entry<Long, long[]> e : server.domains.entrySet()) {
            long[] mine = domains.get(e.getKey());
            long theirs = e.getValue()[1];
            long ours = mine == null ? 0 : mine[1];
            if (Long.compareUnsigned(theirs, ours) > 0) {
                long behind = theirs - ours;
                count = behind < 0 || count + behind < 0 ? Long.MAX_VALUE : count + behind;
            }
        }
        return count;
    }

    public boolean isEmpty() {
        return domains.isEmpty();
    }

    /** The canonical text, domains ascending, as MariaDB accepts it in {@code gtid_slave_pos}. */
    @Override
    public String toString() {
        return domains.keySet().stream().map(this::gtidOf).collect(Collectors.joining(","));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MariaDbGtidPosition && toString().equals(o.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }
}
