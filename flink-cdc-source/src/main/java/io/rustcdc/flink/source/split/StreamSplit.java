package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.EmittedShapes;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * The change stream: where to resume, the chunks whose marks the handoff still needs, the tables
 * it captures, the schema history that matches its position and what the stream's events said of
 * each table's shape up to it ({@link EmittedShapes}). There is one per source.
 * Immutable: a reader's progress lives in its own state and becomes a new split at a checkpoint.
 */
@Internal
public final class StreamSplit<P, M> extends CdcSplit {
    public static final String ID = "stream";

    private final P position;
    private final List<ChunkSplit<M>> handoff;
    private final Set<TableId> tables;
    private final SchemaHistory history;
    private final List<TablePlan> adding;
    private final EmittedShapes shapes;
    @Nullable private final OpenTransaction openTransaction;

    private StreamSplit(P position, List<ChunkSplit<M>> handoff, Set<TableId> tables, SchemaHistory history,
            List<TablePlan> adding, EmittedShapes shapes) {
        this(position, handoff, tables, history, adding, shapes, null);
    }

    private StreamSplit(P position, List<ChunkSplit<M>> handoff, Set<TableId> tables, SchemaHistory history,
            List<TablePlan> adding, EmittedShapes shapes, @Nullable OpenTransaction openTransaction) {
        this.position = Objects.requireNonNull(position, "position");
        this.handoff = List.copyOf(handoff);
        this.tables = Set.copyOf(tables);
        this.history = Objects.requireNonNull(history, "history");
        this.adding = List.copyOf(adding);
        this.shapes = Objects.requireNonNull(shapes, "shapes");
        this.openTransaction = openTransaction;
        for (ChunkSplit<M> c : handoff) {
            if (c.mark() == null) {
                throw new IllegalArgumentException("Chunk " + c.splitId() + " has not been read");
            }
        }
    }

    /**
     * @param handoff read chunks whose marks the stream must still consult
     * @param history the split takes ownership: the caller must not change it afterwards
     */
    public static <P, M> StreamSplit<P, M> of(P position, List<ChunkSplit<M>> handoff, Set<TableId> tables,
            SchemaHistory history) {
        return new StreamSplit<>(position, handoff, tables, history, List.of(), new EmittedShapes());
    }

    /**
     * A split that is also snapshotting tables added after the stream started: {@code adding} says
     * how far each is read; their read chunks are among {@code handoff}.
     */
    public static <P, M> StreamSplit<P, M> of(P position, List<ChunkSplit<M>> handoff, Set<TableId> tables,
            SchemaHistory history, List<TablePlan> adding) {
        return new StreamSplit<>(position, handoff, tables, history, adding, new EmittedShapes());
    }

    /**
     * A split whose stream has run: {@code shapes} are what its events said of each table's shape up
     * to {@code position}; the split takes ownership of them.
     */
    public static <P, M> StreamSplit<P, M> of(P position, List<ChunkSplit<M>> handoff, Set<TableId> tables,
            SchemaHistory history, List<TablePlan> adding, EmittedShapes shapes) {
        return new StreamSplit<>(position, handoff, tables, history, adding, shapes);
    }

    /** This split with {@code open} as the transaction begun and not ended at its position (null: none). */
    public StreamSplit<P, M> withOpenTransaction(@Nullable OpenTransaction open) {
        return new StreamSplit<>(position, handoff, tables, history, adding, shapes, open);
    }

    @Override
    public String splitId() {
        return ID;
    }

    public P position() {
        return position;
    }

    public List<ChunkSplit<M>> handoff() {
        return handoff;
    }

    /** Tables added after the stream started whose snapshot is still being read, with their progress. */
    public List<TablePlan> adding() {
        return adding;
    }

    /** The tables whose snapshot the stream continues. */
    public Set<TableId> tables() {
        return tables;
    }

    /** What the stream's events said of each table's shape up to the position; a reader copies it before changing it. */
    public EmittedShapes shapes() {
        return shapes;
    }

    /** The transaction whose begin marker was emitted and whose end was not reached at the position, or null. */
    @Nullable
    public OpenTransaction openTransaction() {
        return openTransaction;
    }

    /** The history; a reader copies it before changing it. */
    public SchemaHistory history() {
        return history;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StreamSplit<?, ?> s)) {
            return false;
        }
        return position.equals(s.position) && handoff.equals(s.handoff) && tables.equals(s.tables)
                && history.entries().equals(s.history.entries()) && history.latestVersion() == s.history.latestVersion()
                && adding.equals(s.adding) && shapes.equals(s.shapes)
                && Objects.equals(openTransaction, s.openTransaction);
    }

    @Override
    public int hashCode() {
        return Objects.hash(position, handoff.size(), tables);
    }

    @Override
    public String toString() {
        return "stream @" + position + ", " + tables.size() + " tables, " + handoff.size() + " chunks in handoff, "
                + (adding.isEmpty() ? "" : "adding " + adding + ", ") + (openTransaction == null ? "" : openTransaction + ", ")
                + history;
    }
}
