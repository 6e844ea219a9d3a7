package io.rustcdc.flink.source.history;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.TableId;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.io.SimpleVersionedSerialization;

/**
 * The schema history as a job reads it: built from the schema change events the job receives, each
 * under the version the source's history gave it ({@link SchemaChangeRows#historyVersion}), so a
 * lookup by a version an event carried answers what the source's history answers.
 *
 * <p>A FLIP-27 source has one output and no side outputs, and its state is not queryable; the
 * history reaches a job through its schema change events, which carry their version and the shape
 * they leave. Feed every event (or every schema change event) to {@link #observe} in the order of
 * one table's events: the source emits all schema change events from the one subtask that streams,
 * so a {@code keyBy} on the table, or one operator after the source, sees them in order. An event
 * seen again (replayed after a restore, with the version it had) changes nothing.
 *
 * <p>Not kept: the shapes rows arrived with between schema changes (each row carries its own
 * shape), and a creation or alteration whose resulting shape the source could not read (its event
 * has no version). Keep the view in Flink state as {@link #toBytes} (a {@code byte[]}, versioned and
 * readable by every later release). Not thread-safe.
 *
 * <pre>{@code
 * SchemaHistoryView view = new SchemaHistoryView(256);
 * view.observe(event);
 * view.atVersion(table, 17); // the shape the last change of table at or before version 17 left
 * view.atTime(table, Instant.parse("2026-12-01T10:00:00Z"));
 * }</pre>
 */
@PublicEvolving
public final class SchemaHistoryView {
    private final SchemaHistory history;

    /** A view keeping the last {@code retention} schema changes of each table (at least 1). */
    public SchemaHistoryView(int retention) {
        this(new SchemaHistory(retention));
    }

    private SchemaHistoryView(SchemaHistory history) {
        this.history = history;
    }

    /**
     * Records {@code event} when it is a schema change event the source versioned and the view has
     * not seen (a version after the newest it holds).
     *
     * @return whether the view changed
     */
    public boolean observe(ChangeEvent event) {
        if (event.op() != Op.SCHEMA_CHANGE) {
            return false;
        }
        Long version = SchemaChangeRows.historyVersion(event.after());
        if (version == null || version <= history.latestVersion()) {
            return false;
        }
        Instant time = event.source().commitTime() != null ? event.source().commitTime() : Instant.EPOCH;
        SchemaChange change = SchemaChange.ofEvent(event, time);
        if (change == null) {
            return false; // the source gives such an event no version; nothing to record
        }
        String id = event.source().position() == null ? "" : event.source().position().toString();
        history.recordAt(version, id, change);
        return true;
    }

    /** The table's shape after its newest schema change seen; empty when none was seen or it was dropped. */
    public Optional<RowShape> latest(TableId table) {
        return history.latest(table);
    }

    /** The table's shape after its last schema change at or before {@code version}; empty as {@link #latest}. */
    public Optional<RowShape> atVersion(TableId table, long version) {
        return history.atVersion(table, version);
    }

    /** The table's shape after its last schema change committed at or before {@code time}; empty as {@link #latest}. */
    public Optional<RowShape> atTime(TableId table, Instant time) {
        return history.atTime(table, time);
    }

    /** The table's retained schema changes, oldest first, each with its version and the shape it left. */
    public List<SchemaHistory.Entry> entries(TableId table) {
        return history.entries(table);
    }

    /** The newest version seen, 0 when none. */
    public long latestVersion() {
        return history.latestVersion();
    }

    /** The view as bytes, for Flink state: versioned, readable by {@link #fromBytes} of every later release. */
    public byte[] toBytes() throws IOException {
        return SimpleVersionedSerialization.writeVersionAndSerialize(SchemaHistorySerializer.INSTANCE, history);
    }

    /** A view written by {@link #toBytes}, with the retention it was written with. */
    public static SchemaHistoryView fromBytes(byte[] bytes) throws IOException {
        return new SchemaHistoryView(
                SimpleVersionedSerialization.readVersionAndDeSerialize(SchemaHistorySerializer.INSTANCE, bytes));
    }

    /** A view written by {@link #toBytes}, keeping the last {@code retention} changes of each table from now on. */
    public static SchemaHistoryView fromBytes(byte[] bytes, int retention) throws IOException {
        return new SchemaHistoryView(
                SimpleVersionedSerialization.readVersionAndDeSerialize(SchemaHistorySerializer.INSTANCE, bytes)
                        .copy(retention));
    }

    @Override
    public String toString() {
        return "SchemaHistoryView{" + history + "}";
    }
}
