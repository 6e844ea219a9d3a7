package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import javax.annotation.Nullable;

/**
 * A snapshot chunk of Oracle MySQL (or of MariaDB, where its snapshot's position is not known)
 * completed from the binlog (see {@code ChunkReader.readChunkWithBackfill} and {@code
 * readMariaDbChunk}): the rows the snapshot read, then, in binlog order, every change of the table
 * in the chunk's key range from the transactions not in the GTID set read before the snapshot (on
 * MariaDB: from a position read before it), up to the binlog position read after it. Full row
 * images (the server check requires {@code binlog_row_image = FULL}) set a row; a delete, or the
 * old image of an update, removes it. Whether a change lies in the chunk's range is decided by its
 * chunk key; rows are told apart by the primary key where the table has one (a configured chunk key
 * may repeat a value or be NULL), else by the chunk key, by their values as stored (the binlog's
 * images carry exactly those), so keys a case-insensitive collation holds equal are still two keys
 * here, each set or removed by its own changes, as the rows that held them were.
 *
 * <p>A key of text in a collation {@link MySqlKeyOrder} does not order ({@link
 * MySqlKeyOrder#placedByServer}) is placed in or out of the chunk's range by the server ({@link
 * MySqlKeyPlacement}, the session's, which reads a key's catalogue once): the window's changes of the
 * table are held until its end, then their keys placed in one query on the catalogue connection (the
 * window is the moment the snapshot took to open, so it holds few) and the changes applied in binlog
 * order. Not thread-safe.
 */
final class ChunkBackfill {
    /** How long the binlog may stay silent before the backfill gives up (it is read without blocking). */
    private static final Duration SILENCE = Duration.ofSeconds(60);

    private final MySqlSourceConfig config;
    /** The catalogue session's connection, for the backfill's catalogue look-ups; not in a transaction. */
    private final Connection session;
    private final Map<Integer, String> charsets;
    private final TableDescription table;
    private final RowType rowType;
    private final int[] keyIndexes;
    private final List<ValueType> keyTypes;
    /** The key columns' collations, as the table's description names them (text of some is ordered). */
    private final List<String> keyCollations = new ArrayList<>();
    @Nullable private final Object[] after;
    @Nullable private final Object[] upTo;
    /** The columns that tell rows apart: the primary key where the table has one, else the chunk key. */
    private final int[] identityIndexes;
    /** The rows the window set, by {@link #identity}. */
    private final Map<Object, Row> rows;
    /** The session's, which places changed keys in or out of the range, for keys the server orders; else null. */
    @Nullable private final MySqlKeyPlacement placement;
    /** With {@link #placement}: the window's changes of the table, applied at its end. */
    private final List<ChangeEvent> held = new ArrayList<>();
    /** With {@link #placement}: whether each held change's key lies in the range, once placed. */
    private final Map<Key, Boolean> placed = new java.util.HashMap<>();
    /** Rows (by {@link #identity}) whose last change removed them (a delete, or an update that moved them out). */
    private final java.util.Set<Object> removed;
    /** Whether a TRUNCATE came: rows not set since are gone. */
    private boolean truncated;
    /** Whether the window changed a row of the chunk's range (or truncated the table). */
    private boolean touched;
    /** Where the transactions not in the GTID set of {@link #apply} are at the earliest; null until it ran. */
    @Nullable private MySqlPosition nextBound;
    /** Where the read reached the high position, with the GTIDs executed before it, once the chunk is complete. */
    @Nullable private MySqlPosition reachedHigh;

    ChunkBackfill(MySqlSourceConfig config, Connection session, MySqlKeyPlacement placement, Map<Integer, String> charsets,
            TableDescription table, List<String> keyColumns, @Nullable Object[] after, @Nullable Object[] upTo,
            List<Row> snapshot) {
        this.config = config;
        this.session = session;
        this.charsets = charsets;
        this.table = table;
        this.rowType = table.rowType();
        this.keyIndexes = new int[keyColumns.size()];
        this.keyTypes = new ArrayList<>();
        boolean ordered = true;
        boolean placeable = true;
        for (int i = 0; i < keyIndexes.length; i++) {
            keyIndexes[i] = rowType.indexOf(keyColumns.get(i));
            if (keyIndexes[i] < 0) {
                throw new IllegalStateException("No key column " + keyColumns.get(i) + " in " + table.table());
            }
            ValueType type = rowType.type(keyIndexes[i]);
            keyTypes.add(type);
            keyCollations.add(table.collation(keyIndexes[i]));
            ordered &= MySqlKeyOrder.INSTANCE.orders(type, table.collation(keyIndexes[i]));
            placeable &= MySqlKeyOrder.INSTANCE.orders(type, table.collation(keyIndexes[i]))
                    || MySqlKeyOrder.INSTANCE.placedByServer(type, table.collation(keyIndexes[i]));
        }
        boolean ranged = after != null || upTo != null;
        this.placement = ranged && !ordered && placeable ? Objects.requireNonNull(placement) : null;
        if (ranged && !ordered && !placeable) {
            throw new IllegalStateException("A chunk range over keys without an exact order: " + keyTypes);
        }
        this.after = after;
        this.upTo = upTo;
        // rows told apart by the primary key where there is one: a configured chunk key may repeat a value or be NULL
        List<String> primaryKey = table.shape().primaryKey();
        List<String> identityColumns = primaryKey.isEmpty() ? keyColumns : primaryKey;
        this.identityIndexes = new int[identityColumns.size()];
        List<ValueType> identityTypes = new ArrayList<>();
        List<String> identityCollations = new ArrayList<>();
        boolean identityOrdered = true;
        for (int i = 0; i < identityIndexes.length; i++) {
            identityIndexes[i] = rowType.indexOf(identityColumns.get(i));
            if (identityIndexes[i] < 0) {
                throw new IllegalStateException("No key column " + identityColumns.get(i) + " in " + table.table());
            }
            identityTypes.add(rowType.type(identityIndexes[i]));
            identityCollations.add(table.collation(identityIndexes[i]));
            identityOrdered &= MySqlKeyOrder.INSTANCE.orders(identityTypes.get(i), identityCollations.get(i));
        }
        // keys as stored: each row's images in the binlog carry exactly the key the snapshot reads
        java.util.Comparator<Object> order = (a, b) -> MySqlKeyOrder.INSTANCE.compare(identityTypes, identityCollations,
                ((Key) a).values, ((Key) b).values);
        this.rows = identityOrdered ? new TreeMap<>(order) : new LinkedHashMap<>();
        this.removed = identityOrdered ? new java.util.TreeSet<>(order) : new java.util.HashSet<>();
        for (Row row : snapshot) {
            rows.put(identity(row), row);
        }
    }

    /**
     * Whether the window changed a row of the chunk's key range: then the rows of a filtered chunk
     * cannot be completed from it, as whether a changed row satisfies the filter only the database knows.
     */
    boolean touched() {
        return touched;
    }

    /** The chunk's rows, in the order of {@link #identity} where it has an exact order. */
    Collection<Row> rows() {
        return rows.values();
    }

    /**
     * For a backfill given no snapshot rows, which holds only the rows its binlog window changed: a
     * snapshot row as the window leaves it, to {@code out} (the row's last change in the window, or
     * nothing when that removed it, or the row itself when the window did not touch it). Once every
     * snapshot row went through, {@link #rows()} holds the rows the window added that the snapshot lacked.
     */
    void merge(Row snapshotRow, Consumer<Row> out) {
        if (rows.isEmpty() && removed.isEmpty() && !truncated) {
            out.accept(snapshotRow); // no key the window changed is left to meet (it was applied before)
            return;
        }
        Key key = identity(snapshotRow);
        Row changed = rows.remove(key);
        if (changed != null) {
            out.accept(changed);
        } else if (!truncated && !removed.contains(key)) {
            out.accept(snapshotRow);
        }
    }

    /**
     * A binlog position before which no transaction is missing from the GTID set given to {@link
     * #apply} (so from any larger set too: {@code gtid_executed} only grows), for the next chunk's
     * backfill to start at instead of the binlog file's start; null before {@link #apply} ran.
     */
    @Nullable
    MySqlPosition nextBound() {
        return nextBound;
    }

    /**
     * The high position of {@link #apply} with the GTIDs executed before it, exactly: those of the
     * start set and of every transaction the server sent before it (see {@code ExecutedGtids}).
     */
    MySqlPosition high(MySqlPosition high) {
        if (reachedHigh == null) {
            throw new IllegalStateException("The chunk was not completed up to " + high);
        }
        return MySqlPosition.at(high.file(), high.offset(), reachedHigh.mysqlGtids()).on(high.server());
    }

    /**
     * Applies the binlog after the GTIDs {@code low} up to {@code high}, read from {@code bound}
     * (null: from the first binlog file holding a transaction not in {@code low}), which must be
     * such that every transaction not in {@code low} lies at or after it; false when the table's
     * schema changed in between (the chunk must be read again).
     */
    boolean apply(MySqlGtidSet low, MySqlPosition high, @Nullable MySqlPosition bound) {
        // by GTIDs only, the file is not used
        MySqlPosition from = bound != null ? MySqlPosition.at(bound.file(), bound.offset(), low).on(bound.server())
                : MySqlPosition.at(high.file(), 4, low).on(high.server());
        return read(from, true, bound != null, high) && applyHeld();
    }

    /**
     * Applies the binlog from {@code low} up to {@code high}, by file and offset (MariaDB): every
     * transaction before {@code low} must be in the snapshot; one after it that is in the snapshot too
     * changes nothing, as each key's last change before {@code high} decides. False when the table's
     * schema changed in between (the chunk must be read again).
     */
    boolean applyFrom(MySqlPosition low, MySqlPosition high) {
        return read(low, false, false, high) && applyHeld();
    }

    private boolean read(MySqlPosition start, boolean startByGtids, boolean atPosition, MySqlPosition high) {
        TableId id = table.table();
        // the table alone, not the pattern "database.table": a dot in the database's name would split it there, and
        // the window would match none of the table's changes
        TableFilter filter = TableFilter.only(id);
        MySqlPosition from = start;
        boolean byGtids = startByGtids;
        while (true) {
            MySqlPosition last = null;
            MySqlPosition reached = from;
            try (MySqlChangeStream stream = MySqlChangeStream.backfill(config, filter, from, byGtids,
                    byGtids && atPosition, session, charsets)) {
                long silentSince = System.nanoTime();
                while (true) {
                    StreamRecord<MySqlPosition> record;
                    try {
                        record = stream.poll(Duration.ofMillis(200));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new CdcException(CdcException.Kind.CONNECTION, "Interrupted while completing a chunk of "
                                + id.database() + "." + id.table() + " from the binlog");
                    }
                    if (record == null) {
                        if (stream.ended()) {
                            break;
                        }
                        if (System.nanoTime() - silentSince > SILENCE.toNanos()) {
                            throw new CdcException(CdcException.Kind.CONNECTION, "The binlog of " + config.hostname()
                                    + ":" + config.port() + " sent nothing for " + SILENCE.toSeconds() + " s while a "
                                    + "chunk of " + id.database() + "." + id.table() + " was completed from it up to "
                                    + high + " (read from " + from + ")");
                        }
                        continue;
                    }
                    silentSince = System.nanoTime();
                    MySqlPosition at = record.position();
                    // the start of the record's transaction, or where the next one starts
                    if (at.movedTo(at.file(), at.offset()).compareTo(high) >= 0) {
                        // at H: its GTIDs; past it: the last boundary's, as no transaction sent lies between
                        boolean atHigh = at.file().equals(high.file()) && at.offset() == high.offset();
                        reachedHigh = atHigh ? at : reached;
                        bound(stream, byGtids, high);
                        return true;
                    }
                    if (record.event() == null) {
                        last = at;
                        reached = at;
                    } else if (!apply(record.event())) {
                        bound(stream, byGtids, high);
                        return false;
                    }
                }
                bound(stream, byGtids, high);
            }
            // The server's end was before H (transactions it skips are reported by a heartbeat at their
            // end, so this is not them): H is where the binlog is written, and the server sends only
            // what it has flushed, a moment later. Go on from the last transaction boundary, by file and
            // offset: a transaction of the GTID set met again there changes nothing the snapshot did not
            // show, as each key's last change before H still decides.
            if (last != null) {
                from = last;
                byGtids = false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CdcException(CdcException.Kind.CONNECTION, "Interrupted while completing a chunk of "
                        + id.database() + "." + id.table() + " from the binlog");
            }
        }
    }

    /** Only a read by GTIDs says where the transactions not in them start. */
    private void bound(MySqlChangeStream stream, boolean byGtids, MySqlPosition high) {
        if (byGtids) {
            MySqlPosition sent = stream.sentFrom();
            nextBound = sent.compareTo(high) < 0
                    ? MySqlPosition.at(ServerFlavor.MYSQL, sent.file(), sent.offset()).on(sent.server()) : high;
        }
    }

    /**
     * Applies one change of the window (package-private for its test); with {@link #placement}, holds it
     * for {@link #applyHeld} instead (a schema change or an inexact row image still ends the window).
     */
    boolean apply(ChangeEvent event) {
        if (!event.table().equals(table.table())) {
            return true;
        }
        if (placement != null && event.op() != Op.SCHEMA_CHANGE) {
            if (!exactImages(event)) {
                return false;
            }
            held.add(event);
            return true;
        }
        return applyNow(event);
    }

    /** The held changes' keys placed by the server in one query, then the changes applied in binlog order. */
    private boolean applyHeld() {
        if (placement == null || held.isEmpty()) {
            return true;
        }
        List<Key> keys = new ArrayList<>();
        for (ChangeEvent e : held) {
            for (Row row : new Row[] {e.before(), e.after()}) {
                Key key = row == null ? null : key(row);
                if (key != null && placed.putIfAbsent(key, Boolean.FALSE) == null) {
                    keys.add(key);
                }
            }
        }
        List<Object[]> bounds = new ArrayList<>();
        if (after != null) {
            bounds.add(after);
        }
        if (upTo != null) {
            bounds.add(upTo);
        }
        int[] ranks;
        try {
            ranks = placement.place(session, table.table(), keyColumns(), keyTypes, keyCollations, bounds,
                    keys.stream().map(k -> k.values).collect(java.util.stream.Collectors.toList()));
        } catch (java.sql.SQLException e) {
            throw MySqlConnections.failure(config, e);
        }
        int inside = after != null ? 1 : 0; // after < key <= upTo
        for (int i = 0; i < ranks.length; i++) {
            placed.put(keys.get(i), ranks[i] == inside);
        }
        boolean applied = true;
        for (int i = 0; i < held.size() && applied; i++) {
            applied = applyNow(held.get(i)); // false: the window ends, the chunk is read again (as unheld)
        }
        held.clear();
        return applied;
    }

    private List<String> keyColumns() {
        List<String> names = new ArrayList<>();
        for (int index : keyIndexes) {
            names.add(rowType.name(index));
        }
        return names;
    }

    /** Whether the images a change sets or removes by are there and exact ({@link #set}, {@link #remove}). */
    private boolean exactImages(ChangeEvent event) {
        boolean sets = event.op() == Op.INSERT || event.op() == Op.UPDATE;
        boolean removes = event.op() == Op.UPDATE || event.op() == Op.DELETE;
        return (!sets || (event.after() != null && exact(event.after())))
                && (!removes || (event.before() != null && exact(event.before())));
    }

    private boolean applyNow(ChangeEvent event) {
        switch (event.op()) {
            case INSERT:
                return set(event.after());
            case UPDATE:
                return remove(event.before()) && set(event.after());
            case DELETE:
                return remove(event.before());
            case TRUNCATE:
                rows.clear();
                removed.clear();
                truncated = true;
                touched = true;
                return true;
            case SCHEMA_CHANGE:
                return false;
            default:
                return true;
        }
    }

    private boolean set(Row row) {
        if (!exact(row)) {
            return false;
        }
        if (inRange(rangeKey(row))) {
            Key id = identified(row);
            rows.put(id, row);
            removed.remove(id);
            touched = true;
        }
        return true;
    }

    private boolean remove(@Nullable Row row) {
        if (row == null || !exact(row)) {
            return false;
        }
        if (inRange(rangeKey(row))) {
            Key id = identified(row);
            rows.remove(id);
            removed.add(id);
            touched = true;
        }
        return true;
    }

    /**
     * The chunk key of a row the window changed, to place it in or out of the range. Key ranges leave out rows whose
     * key is NULL (a nullable key is read as one chunk): such a row in a ranged chunk means the column was made
     * nullable after the table was split.
     */
    private Object[] rangeKey(Row row) {
        Key key = key(row);
        if (after != null || upTo != null) {
            for (int i = 0; i < key.values.length; i++) {
                if (key.values[i] == null) {
                    TableId id = table.table();
                    throw new CdcException(CdcException.Kind.STATE, "A change of a row of table " + id.database()
                            + "." + id.table() + " whose chunk key column " + rowType.name(keyIndexes[i]) + " is NULL "
                            + "came in the binlog while a chunk of the table's key ranges was read, which leave out rows "
                            + "whose key is NULL: the column was made nullable after the table was split. Make it NOT "
                            + "NULL again, or restart the source without its state so that the table is read anew.");
                }
            }
        }
        return key.values;
    }

    /** A binlog row of the snapshot's columns and types, every value present. */
    private boolean exact(Row row) {
        return row.type().equals(rowType) && row.absentFields().isEmpty();
    }

    private boolean inRange(Object[] key) {
        if (placement != null) {
            return placed.get(new Key(key));
        }
        return (after == null || MySqlKeyOrder.INSTANCE.compare(keyTypes, keyCollations, key, after) > 0)
                && (upTo == null || MySqlKeyOrder.INSTANCE.compare(keyTypes, keyCollations, key, upTo) <= 0);
    }

    /**
     * The {@link #identity} of a row the window changed, which must tell it from every other row: without a primary
     * key, a NULL in a (nullable) chunk key column does not, as rows whose key is NULL would all be taken for one.
     */
    private Key identified(Row row) {
        Key key = identity(row);
        for (int i = 0; i < key.values.length; i++) {
            if (key.values[i] == null) {
                TableId id = table.table();
                String column = rowType.name(identityIndexes[i]);
                throw new CdcException(CdcException.Kind.CONFIGURATION, "A change of a row of table " + id.database()
                        + "." + id.table() + " whose chunk key column " + column + " is NULL came in the binlog while "
                        + "a snapshot chunk was completed from it: in a table without a primary key, rows whose chunk "
                        + "key is NULL cannot be told apart, so the chunk cannot be made exact (a restart reads it "
                        + "again). Give the table a primary key, or name a column whose values are unique and not null "
                        + "with '" + CdcSourceOptions.CHUNK_KEY_COLUMNS.key() + "' (chunkKeyColumn in a DataStream "
                        + "job; an entry " + id.database() + "." + id.table() + ":<column>), or give every row a value of "
                        + column + " and declare it NOT NULL.");
            }
        }
        return key;
    }

    /** The chunk key's values: where a row lies in the chunks. */
    private Key key(Row row) {
        return values(row, keyIndexes);
    }

    /** What tells a row from the others: its primary key's values, or its chunk key's in a table without one. */
    private Key identity(Row row) {
        return values(row, identityIndexes);
    }

    private static Key values(Row row, int[] indexes) {
        Object[] values = new Object[indexes.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.get(indexes[i]);
        }
        return new Key(values);
    }

    /** Key values compared as stored (byte arrays by content). */
    private static final class Key {
        final Object[] values;

        Key(Object[] values) {
            this.values = values;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && Arrays.deepEquals(values, ((Key) o).values);
        }

        @Override
        public int hashCode() {
            return Arrays.deepHashCode(values);
        }
    }
}
