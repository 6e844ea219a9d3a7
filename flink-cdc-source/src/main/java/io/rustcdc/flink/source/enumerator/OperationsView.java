package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TablePlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;

/**
 * The enumerator as the snapshot operations see it ({@link SnapshotOperations.Snapshot}): a table's
 * progress from the snapshot's chunks, the captured tables and the stream's added tables, and what
 * an operation does to them. Coordinator thread only.
 */
@Internal
final class OperationsView<M> implements SnapshotOperations.Snapshot {
    private final SnapshotChunks<M> chunks;
    private final StreamOwner<?, M> stream;
    /**
     * The enumerator's captured tables: a table whose first snapshot is stopped before any of its rows may have
     * gone out leaves them; one stopped after stays (see {@link #drop}).
     */
    private final Set<TableId> tables;
    private final boolean streams;
    private final Supplier<Set<TableId>> known;
    private final Consumer<TableDiscovery.Found> startNew;
    private final Consumer<List<TablePlan>> changed;
    private final java.util.function.Function<TableId, String> configuredRowFilter;
    /** Rereads requested in this poll, sent after the flags. */
    private final List<TablePlan> rereadsToSend = new ArrayList<>();

    /**
     * @param known every table the source captures or is taking in
     * @param startNew takes a table not captured into the snapshot, or hands it to the stream's reader
     * @param changed the flags changed: chunks may be assigned, or the stream's reader is told the flags,
     *     then the rereads given
     */
    OperationsView(SnapshotChunks<M> chunks, StreamOwner<?, M> stream, Set<TableId> tables, boolean streams,
            Supplier<Set<TableId>> known, Consumer<TableDiscovery.Found> startNew, Consumer<List<TablePlan>> changed,
            java.util.function.Function<TableId, String> configuredRowFilter) {
        this.configuredRowFilter = configuredRowFilter;
        this.chunks = chunks;
        this.stream = stream;
        this.tables = tables;
        this.streams = streams;
        this.known = known;
        this.startNew = startNew;
        this.changed = changed;
    }

    @Override
    public boolean first() {
        return stream.notCreated();
    }

    @Override
    public boolean streams() {
        return streams;
    }

    @Override
    public boolean captured(TableId table) {
        return tables.contains(table);
    }

    @Override
    public boolean inSnapshot(TableId table) {
        // a table the stream's reader was snapshotting stays so while a stream split handed back is made again
        return chunks.inProgress(table) || stream.adding(table);
    }

    @Override
    public boolean readingChunks(TableId table) {
        return chunks.reading(table);
    }

    @Override
    public Set<TableId> tables() {
        return known.get();
    }

    @Override
    public int chunksPlanned(TableId table) {
        return chunks.chunksPlanned(table);
    }

    @Override
    public int chunksRead(TableId table) {
        return chunks.chunksRead(table);
    }

    @Override
    public void startNew(TableDiscovery.Found table) {
        startNew.accept(table);
    }

    @Override
    public void reread(TablePlan plan) {
        if (stream.answered()) {
            rereadsToSend.add(plan);
        } // otherwise handed over with the answer to the stream's reader
    }

    @Override
    public void drop(TableId table) {
        if (chunks.inProgress(table)) {
            // rows of it may have gone out (a chunk read, being read, or emitted by an attempt that failed): it stays
            // captured, so that the stream emits every change of it, deletes of the rows downstream holds included,
            // and a request reads it again as a captured table (every change emitted while it is read). Before the
            // fix a partly read table left the captured set and its next snapshot left out the changes its chunks
            // showed: deletes of rows the first, partial snapshot delivered were lost (found by an adversarial probe)
            boolean delivered = streams && chunks.delivered(table);
            chunks.drop(table);
            if (!delivered) {
                tables.remove(table); // nothing of it went out: it is not captured, as a table not snapshotted
            }
        }
        stream.drop(table); // also while a stream split handed back is made again
    }

    @Override
    public String configuredRowFilter(TableId table) {
        return configuredRowFilter.apply(table);
    }

    @Override
    public void changed() {
        changed.accept(rereadsToSend);
        rereadsToSend.clear();
    }
}
