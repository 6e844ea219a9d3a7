package io.rustcdc.flink.source.history;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The versioned record of every table's shape: captured DDL and the shapes rows were seen with.
 * It lives in the stream split's state, so a restore brings back exactly the history that matches
 * the restored position.
 *
 * <p>{@link #recordDdl} is idempotent on its {@code ddlId}: a redelivered entry returns the
 * version it was given and changes nothing, so a replayed {@code ADD COLUMN} is never applied
 * twice. Identities are the source log position for a statement (a table altered A, B, A has
 * three entries) and {@code shape:<schema>.<table>:<offset>} for a row's shape.
 *
 * <p>Each table keeps its last {@link #retention()} entries (256 by default); older ones are
 * pruned, together with their identities. Not thread-safe: one reader owns it.
 *
 * <pre>{@code
 * SchemaHistory history = new SchemaHistory();
 * long v = history.recordDdl("0/16B3748", SchemaChange.create(table, ddl, shape, commitTime));
 * history.latest(table); // Optional[shape]
 * }</pre>
 */
@PublicEvolving
public final class SchemaHistory {
    public static final int DEFAULT_RETENTION = 256;

    /** One recorded version. */
    @PublicEvolving
    public static final class Entry {
        private final long version;
        private final String ddlId;
        private final SchemaChange change;
        @Nullable private final RowShape shape;

        Entry(long version, String ddlId, SchemaChange change, @Nullable RowShape shape) {
            this.version = version;
            this.ddlId = ddlId;
            this.change = change;
            this.shape = shape;
        }

        public long version() {
            return version;
        }

        /** The entry's identity, empty when the caller opted out of idempotency. */
        public String ddlId() {
            return ddlId;
        }

        public SchemaChange change() {
            return change;
        }

        /** The table's shape after this entry; null after a drop (a tombstone). */
        @Nullable
        public RowShape shape() {
            return shape;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Entry)) {
                return false;
            }
            Entry e = (Entry) o;
            return version == e.version && ddlId.equals(e.ddlId) && change.equals(e.change)
                    && java.util.Objects.equals(shape, e.shape);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(version, ddlId, change, shape);
        }

        @Override
        public String toString() {
            return "v" + version + " " + change;
        }
    }

    private final int retention;
    private final Map<TableId, Deque<Entry>> byTable = new HashMap<>();
    private final Map<String, Long> versionsById = new HashMap<>();
    private long lastVersion;

    public SchemaHistory() {
        this(DEFAULT_RETENTION);
    }

    /** A history keeping the last {@code retention} entries of each table (at least 1). */
    public SchemaHistory(int retention) {
        if (retention < 1) {
            throw new IllegalArgumentException("Schema history retention must be at least 1, not " + retention);
        }
        this.retention = retention;
    }

    public int retention() {
        return retention;
    }

    /**
     * Records {@code change} and returns its version. When {@code ddlId} is not empty and already
     * recorded, returns that entry's version and changes nothing.
     *
     * @throws CdcException of kind {@link CdcException.Kind#SCHEMA_HISTORY} when a diff-only ALTER
     *     names a table the history does not hold, or its diff does not fit the table's shape; the
     *     history is unchanged
     */
    public long recordDdl(String ddlId, SchemaChange change) {
        if (!ddlId.isEmpty()) {
            Long known = versionsById.get(ddlId);
            if (known != null) {
                return known;
            }
        }
        RowShape shape = resultingShape(change);
        Entry entry = new Entry(lastVersion + 1, ddlId, change, shape);
        append(entry);
        prune(change.table());
        return entry.version();
    }

    /**
     * Records {@code change} under a version another history gave it ({@link SchemaHistoryView}: the
     * source's); versions must grow.
     */
    long recordAt(long version, String ddlId, SchemaChange change) {
        if (version <= lastVersion) {
            throw new IllegalArgumentException("Version " + version + " of " + change.table()
                    + " is not after the last version recorded, " + lastVersion);
        }
        Entry entry = new Entry(version, ddlId, change, resultingShape(change));
        append(entry);
        prune(change.table());
        return version;
    }

    /** The table's retained entries in version order; empty when none. */
    public List<Entry> entries(TableId table) {
        Deque<Entry> entries = byTable.get(table);
        return entries == null ? List.of() : List.copyOf(entries);
    }

    /** The table's latest shape; empty when unknown or dropped. */
    public Optional<RowShape> latest(TableId table) {
        Deque<Entry> entries = byTable.get(table);
        return entries == null ? Optional.empty() : Optional.ofNullable(entries.getLast().shape());
    }

    /** The table's shape as of {@code version}; empty when unknown (or pruned) or dropped then. */
    public Optional<RowShape> atVersion(TableId table, long version) {
        return lastMatching(table, e -> e.version() <= version);
    }

    /** The table's shape as of {@code time}; empty when unknown (or pruned) or dropped then. */
    public Optional<RowShape> atTime(TableId table, Instant time) {
        return lastMatching(table, e -> !e.change().timestamp().isAfter(time));
    }

    /** The newest version recorded, 0 when none. */
    public long latestVersion() {
        return lastVersion;
    }

    /** Every retained entry in version order. */
    public List<Entry> entries() {
        List<Entry> all = new ArrayList<>();
        for (Deque<Entry> entries : byTable.values()) {
            all.addAll(entries);
        }
        all.sort(Comparator.comparingLong(Entry::version));
        return all;
    }

    /** An independent copy: entries are immutable, so only the indexes are copied. */
    public SchemaHistory copy() {
        return copy(retention);
    }

    /**
     * An independent copy keeping the last {@code retention} entries of each table (at least 1): a
     * smaller retention prunes the copy's older entries at once; versions stay as they are.
     */
    public SchemaHistory copy(int retention) {
        SchemaHistory copy = new SchemaHistory(retention);
        for (Entry e : entries()) {
            copy.restore(e);
        }
        copy.restoreLastVersion(lastVersion);
        for (TableId table : copy.byTable.keySet()) {
            copy.prune(table);
        }
        return copy;
    }

    /** Restores an entry read from state, keeping its version. Entries come in version order. */
    void restore(Entry entry) {
        append(entry);
    }

    /** Restores the version counter read from state. */
    void restoreLastVersion(long version) {
        this.lastVersion = version;
    }

    private void append(Entry entry) {
        byTable.computeIfAbsent(entry.change().table(), t -> new ArrayDeque<>()).addLast(entry);
        if (!entry.ddlId().isEmpty()) {
            versionsById.put(entry.ddlId(), entry.version());
        }
        lastVersion = Math.max(lastVersion, entry.version());
    }

    private void prune(TableId table) {
        Deque<Entry> entries = byTable.get(table);
        while (entries.size() > retention) {
            Entry old = entries.removeFirst();
            if (!old.ddlId().isEmpty()) {
                versionsById.remove(old.ddlId());
            }
        }
    }

    private Optional<RowShape> lastMatching(TableId table, java.util.function.Predicate<Entry> test) {
        Deque<Entry> entries = byTable.get(table);
        if (entries == null) {
            return Optional.empty();
        }
        for (Iterator<Entry> it = entries.descendingIterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (test.test(e)) {
                return Optional.ofNullable(e.shape());
            }
        }
        return Optional.empty();
    }

    @Nullable
    private RowShape resultingShape(SchemaChange change) {
        switch (change.kind()) {
            case DROP_TABLE:
                return null;
            case ALTER_TABLE:
                if (change.resultShape() == null) {
                    RowShape current = latest(change.table()).orElseThrow(() -> new CdcException(
                            CdcException.Kind.SCHEMA_HISTORY,
                            "The schema history holds no shape of " + change.table() + ", so the diff of '"
                                    + change.statement() + "' cannot be applied. The event itself is complete; "
                                    + "the history gains the table's shape from its next row or snapshot."));
                    return SchemaDiffs.apply(current, change);
                }
                return change.resultShape();
            default:
                return change.resultShape();
        }
    }

    @Override
    public String toString() {
        return "SchemaHistory{" + byTable.size() + " tables, last version " + lastVersion + "}";
    }
}
