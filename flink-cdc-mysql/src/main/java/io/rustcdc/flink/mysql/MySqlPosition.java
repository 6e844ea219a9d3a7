package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.PositionString;
import io.rustcdc.flink.source.model.PositionText;
import io.rustcdc.flink.source.model.SourcePosition;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a MySQL or MariaDB binlog reader resumes: the binlog file and the offset of the transaction
 * (or event) to read next, how many row events of that transaction and rows of the next row event
 * were already taken (so a restart inside a transaction skips exactly what was delivered) with that
 * transaction's GTID, and the GTIDs executed before it: a MySQL set or a MariaDB position by {@link
 * #flavor()}, never the other. Immutable. Positions with GTIDs order by them (MySQL sets by
 * inclusion, MariaDB positions per domain), so they compare across the servers of one replication
 * history and a stream resumes from them on any of those servers; other positions order by binlog
 * file (its numeric extension), offset, events and rows, within one server's binlog.
 *
 * <p>A position read from a server also names that server ({@link #server()}: Oracle MySQL's {@code
 * @@server_uuid}, MariaDB's {@code @@server_id}), since a binlog file and offset mean something only
 * on the server that wrote them, and servers may name their files alike. It takes part in {@link
 * #equals} but not in {@link #compareTo} nor {@link #toString} (which every event's source carries).
 */
@PublicEvolving
public final class MySqlPosition implements SourcePosition, Comparable<MySqlPosition> {
    private static final long serialVersionUID = 1L;

    private final ServerFlavor flavor;
    private final String file;
    private final long offset;
    private final long eventsTaken;
    private final long rowsTaken;
    @Nullable private final String gtids;
    /**
     * Inside a transaction with a GTID: that GTID, so that a resume by GTIDs skips the rows taken of
     * this transaction only (another server may send another one first). Null between transactions.
     */
    @Nullable private final String transactionGtid;
    /**
     * The server whose binlog {@link #file} is: Oracle MySQL's {@code @@server_uuid}, MariaDB's {@code
     * @@server_id}; null when not known (a position given as text, or restored from state of version 3).
     */
    @Nullable private final String server;
    @Nullable private transient MariaDbGtidPosition parsedMariaDbGtids;
    /** The parsed MySQL set, kept as positions derive from one another: every commit adds to it. */
    @Nullable private transient MySqlGtidSet parsedMySqlGtids;
    /** {@link #toString}, written once when asked for (the JSON renderers take {@link #writeTo} instead). */
    @Nullable private transient String text;

    private MySqlPosition(ServerFlavor flavor, String file, long offset, long eventsTaken, long rowsTaken,
            @Nullable String gtids) {
        this(flavor, file, offset, eventsTaken, rowsTaken, gtids, null, null);
    }

    private MySqlPosition(ServerFlavor flavor, String file, long offset, long eventsTaken, long rowsTaken,
            @Nullable String gtids, @Nullable String transactionGtid, @Nullable String server) {
        if (file.isEmpty() || offset < 4 || eventsTaken < 0 || rowsTaken < 0) {
            throw new IllegalArgumentException("Not a binlog position: " + file + ":" + offset + " events "
                    + eventsTaken + " rows " + rowsTaken);
        }
        this.flavor = Objects.requireNonNull(flavor, "flavor");
        this.file = file;
        this.offset = offset;
        this.eventsTaken = eventsTaken;
        this.rowsTaken = rowsTaken;
        this.gtids = gtids;
        this.transactionGtid = transactionGtid;
        this.server = server;
    }

    /** Between transactions, by file and offset only. */
    public static MySqlPosition at(ServerFlavor flavor, String file, long offset) {
        return new MySqlPosition(flavor, file, offset, 0, 0, null);
    }

    /** Between transactions, with the MySQL GTIDs executed before {@code file:offset}. */
    public static MySqlPosition at(String file, long offset, MySqlGtidSet executed) {
        return new MySqlPosition(ServerFlavor.MYSQL, file, offset, 0, 0, executed.toString()).parsed(executed);
    }

    private MySqlPosition parsed(@Nullable MySqlGtidSet set) {
        parsedMySqlGtids = set;
        return this;
    }

    /** Between transactions, with the MariaDB GTID position before {@code file:offset}. */
    public static MySqlPosition at(String file, long offset, MariaDbGtidPosition executed) {
        return new MySqlPosition(ServerFlavor.MARIADB, file, offset, 0, 0, executed.toString());
    }

    /** Between transactions at {@code file:offset}, with the same GTIDs. */
    public MySqlPosition movedTo(String file, long offset) {
        return new MySqlPosition(flavor, file, offset, 0, 0, gtids, null, server).parsed(parsedMySqlGtids);
    }

    /**
     * The same position in the binlog of {@code server} ({@link #server()}; null when not known): for a
     * position read from that server.
     */
    public MySqlPosition on(@Nullable String server) {
        return Objects.equals(server, this.server) ? this
                : new MySqlPosition(flavor, file, offset, eventsTaken, rowsTaken, gtids, transactionGtid, server)
                        .parsed(parsedMySqlGtids);
    }


    /**
     * Between transactions at {@code file:offset}, right after the transaction {@code gtid} (MySQL
     * {@code uuid:number}, MariaDB {@code domain-server-sequence}; null when the server assigns
     * none): its GTIDs include it. A position without GTIDs stays without: GTIDs gathered from
     * the transactions seen would miss everything executed before, and a resume check against them
     * would call purged what was merely never seen.
     */
    public MySqlPosition committed(String file, long offset, @Nullable String gtid) {
        String executed = gtids;
        if (gtid != null && gtids != null && flavor == ServerFlavor.MARIADB) {
            String[] parts = gtid.split("-");
            executed = MariaDbGtidPosition.parse(gtids)
                    .with(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])).toString();
        } else if (gtid != null && gtids != null) {
            int colon = gtid.lastIndexOf(':');
            MySqlGtidSet set = mysqlGtids().with(gtid.substring(0, colon), Long.parseLong(gtid.substring(colon + 1)));
            return new MySqlPosition(flavor, file, offset, 0, 0, set.toString(), null, server).parsed(set);
        }
        return new MySqlPosition(flavor, file, offset, 0, 0, executed, null, server)
                .parsed(executed == gtids ? parsedMySqlGtids : null);
    }

    /** Inside the transaction at this position: {@code events} row events and then {@code rows} rows taken. */
    public MySqlPosition inTransaction(long events, long rows) {
        return new MySqlPosition(flavor, file, offset, events, rows, gtids, transactionGtid, server)
                .parsed(parsedMySqlGtids);
    }

    /** The start of the transaction {@code gtid} (null when it has none), whose positions inside carry it. */
    public MySqlPosition startOf(@Nullable String gtid) {
        return new MySqlPosition(flavor, file, offset, 0, 0, gtids, gtid, server).parsed(parsedMySqlGtids);
    }

    /**
     * A position as {@link #toString} writes it: {@code mariadb-bin.000003:1234}, optionally with
     * {@code #events.rows} taken (and {@code (gtid)} of that transaction) and {@code [gtids]} of
     * {@code flavor}.
     *
     * @throws CdcException of kind CONFIGURATION naming the expected form
     */
    public static MySqlPosition parse(ServerFlavor flavor, String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("\\s*([^:\\s]+):(\\d+)(?:#(\\d+)\\.(\\d+)(?:\\(([^)]+)\\))?)?(?:\\s*\\[([^\\]]*)])?\\s*")
                .matcher(text);
        if (!m.matches()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + text + "' is not a binlog position: write "
                    + "binlog-file:offset (e.g. mariadb-bin.000003:1234), as SHOW BINARY LOGS and events print it");
        }
        try {
            return restore(flavor, m.group(1), Long.parseLong(m.group(2)), m.group(3) == null ? 0 : Long.parseLong(m.group(3)),
                    m.group(4) == null ? 0 : Long.parseLong(m.group(4)), m.group(6) == null ? null : m.group(6).trim(),
                    m.group(5));
        } catch (IllegalArgumentException e) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + text + "' is not a binlog position: "
                    + e.getMessage());
        }
    }

    /** A position read back from state; the GTID text must be of {@code flavor}. */
    @Internal
    public static MySqlPosition restore(ServerFlavor flavor, String file, long offset, long eventsTaken,
            long rowsTaken, @Nullable String gtids) {
        return restore(flavor, file, offset, eventsTaken, rowsTaken, gtids, null);
    }

    /** A position read back from state, inside the transaction {@code transactionGtid} when not null. */
    @Internal
    public static MySqlPosition restore(ServerFlavor flavor, String file, long offset, long eventsTaken,
            long rowsTaken, @Nullable String gtids, @Nullable String transactionGtid) {
        return restore(flavor, file, offset, eventsTaken, rowsTaken, gtids, transactionGtid, null);
    }

    /** A position read back from state, in the binlog of {@code server} ({@link #server()}) when not null. */
    @Internal
    public static MySqlPosition restore(ServerFlavor flavor, String file, long offset, long eventsTaken,
            long rowsTaken, @Nullable String gtids, @Nullable String transactionGtid, @Nullable String server) {
        if (gtids != null) {
            gtids = flavor == ServerFlavor.MYSQL ? MySqlGtidSet.parse(gtids).toString()
                    : MariaDbGtidPosition.parse(gtids).toString();
        }
        if (transactionGtid != null && !(flavor == ServerFlavor.MYSQL
                ? transactionGtid.matches("[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}(:[a-z_][a-z0-9_]{0,31})?:\\d{1,19}")
                : transactionGtid.matches("\\d{1,10}-\\d{1,10}-\\d{1,20}"))) {
            throw new IllegalArgumentException("'" + transactionGtid + "' is not a " + flavor + " GTID");
        }
        if (transactionGtid != null && eventsTaken == 0 && rowsTaken == 0) {
            transactionGtid = null; // between transactions
        }
        if (server != null && server.isEmpty()) {
            throw new IllegalArgumentException("an empty server identity");
        }
        return new MySqlPosition(flavor, file, offset, eventsTaken, rowsTaken, gtids, transactionGtid, server);
    }

    public ServerFlavor flavor() {
        return flavor;
    }

    public String file() {
        return file;
    }

    public long offset() {
        return offset;
    }

    public long eventsTaken() {
        return eventsTaken;
    }

    public long rowsTaken() {
        return rowsTaken;
    }

    /** Inside a transaction with a GTID: that GTID; else null. */
    @Nullable
    public String transactionGtid() {
        return transactionGtid;
    }

    /**
     * The server whose binlog the file and offset are in: Oracle MySQL's {@code @@server_uuid}, MariaDB's
     * {@code @@server_id} (as decimal text); null when not known (a position given as text, or restored
     * from state written before version 4 of {@code MySqlPositionSerializer}).
     */
    @Nullable
    public String server() {
        return server;
    }

    /** The executed GTIDs as text, or null when the position is by file and offset only. */
    @Nullable
    public String gtidText() {
        return gtids;
    }

    /** The MySQL GTID set; fails for a MariaDB position. */
    @Nullable
    public MySqlGtidSet mysqlGtids() {
        requireFlavor(ServerFlavor.MYSQL);
        if (parsedMySqlGtids == null && gtids != null) {
            parsedMySqlGtids = MySqlGtidSet.parse(gtids);
        }
        return parsedMySqlGtids;
    }

    /** The MariaDB GTID position; fails for a MySQL position. */
    @Nullable
    public MariaDbGtidPosition mariaDbGtids() {
        requireFlavor(ServerFlavor.MARIADB);
        if (parsedMariaDbGtids == null && gtids != null) {
            parsedMariaDbGtids = MariaDbGtidPosition.parse(gtids);
        }
        return parsedMariaDbGtids;
    }

    private void requireFlavor(ServerFlavor expected) {
        if (flavor != expected) {
            throw new IllegalStateException("A " + flavor + " position has no " + expected + " GTIDs: " + this);
        }
    }

    /**
     * Positions of one flavor that both carry GTIDs order by them (then by events and rows taken), so
     * positions read from different servers of one replication history compare: a replica's binlog
     * has other file names and offsets. A MySQL set is before another it is a strict subset of; a
     * MariaDB position is before one that is further in some domain and behind in none. Otherwise,
     * and for GTIDs of diverged histories, positions order by binlog file, offset, events and rows.
     */
    @Override
    public int compareTo(MySqlPosition o) {
        Integer c = null;
        if (flavor == o.flavor && gtids != null && o.gtids != null) {
            c = flavor == ServerFlavor.MARIADB ? mariaDbGtids().compareInHistory(o.mariaDbGtids())
                    : gtids.equals(o.gtids) ? Integer.valueOf(0) : compareSets(mysqlGtids(), o.mysqlGtids());
        }
        if (c == null) {
            c = Long.compare(fileNumber(file), fileNumber(o.file));
            if (c == 0) {
                c = file.compareTo(o.file);
            }
            if (c == 0) {
                c = Long.compare(offset, o.offset);
            }
        }
        if (c == 0) {
            c = Long.compare(eventsTaken, o.eventsTaken);
        }
        return c != 0 ? c : Long.compare(rowsTaken, o.rowsTaken);
    }

    @Nullable
    private static Integer compareSets(MySqlGtidSet a, MySqlGtidSet b) {
        return a.isSubsetOf(b) ? Integer.valueOf(-1) : b.isSubsetOf(a) ? Integer.valueOf(1) : null;
    }

    /** The numeric extension of a binlog file name ({@code mysql-bin.000012} is 12), -1 when it has none. */
    static long fileNumber(String file) {
        int dot = file.lastIndexOf('.');
        try {
            return Long.parseLong(file.substring(dot + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MySqlPosition)) {
            return false;
        }
        MySqlPosition p = (MySqlPosition) o;
        return flavor == p.flavor && file.equals(p.file) && offset == p.offset && eventsTaken == p.eventsTaken
                && rowsTaken == p.rowsTaken && Objects.equals(gtids, p.gtids)
                && Objects.equals(transactionGtid, p.transactionGtid) && Objects.equals(server, p.server);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flavor, file, offset, eventsTaken, rowsTaken, gtids, transactionGtid, server);
    }

    /** As {@link #writeTo} writes it, made once when first asked for. */
    @Override
    public String toString() {
        if (text == null) {
            text = PositionString.of(this::writeTo);
        }
        return text;
    }

    /**
     * {@code mariadb-bin.000003:1234#2.5(0-1-78) [0-1-77]}: file:offset, events.rows taken (of GTID), GTIDs; the
     * server left out. Written in pieces, without building a String (each row of a transaction has its own position).
     */
    @Override
    public void writeTo(PositionText out) {
        if (text != null) {
            out.text(text);
            return;
        }
        out.text(file).text(":").decimal(offset);
        if (eventsTaken != 0 || rowsTaken != 0) {
            out.text("#").decimal(eventsTaken).text(".").decimal(rowsTaken);
            if (transactionGtid != null) {
                out.text("(").text(transactionGtid).text(")");
            }
        }
        if (gtids != null) {
            out.text(" [").text(gtids).text("]");
        }
    }
}
