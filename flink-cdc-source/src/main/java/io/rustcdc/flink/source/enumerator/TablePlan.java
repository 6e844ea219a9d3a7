package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * How far a table's chunks are planned: the next chunk's number and lower bound. Chunk bounds are
 * found one at a time, when a reader asks, so the plan of a 100M-row table stays this small.
 * Immutable; planning a chunk gives the next plan.
 */
@Internal
public final class TablePlan {
    private final TableId table;
    private final ChunkKey key;
    private final int nextIndex;
    @Nullable private final Object[] nextAfter;

    TablePlan(TableId table, ChunkKey key, int nextIndex, @Nullable Object[] nextAfter) {
        this.table = Objects.requireNonNull(table, "table");
        this.key = Objects.requireNonNull(key, "key");
        this.nextIndex = nextIndex;
        this.nextAfter = nextAfter;
    }

    static TablePlan start(TableId table, ChunkKey key) {
        return new TablePlan(table, key, 0, null);
    }

    public TableId table() {
        return table;
    }

    public ChunkKey key() {
        return key;
    }

    public int nextIndex() {
        return nextIndex;
    }

    @Nullable
    public Object[] nextAfter() {
        return nextAfter;
    }

    /** The next chunk, ending at {@code upTo} (null: the rest of the table). */
    <M> ChunkSplit<M> chunk(@Nullable Object[] upTo) {
        return ChunkSplit.of(table, key, nextIndex, nextAfter, upTo);
    }

    /** The plan after a chunk ending at {@code upTo} (which must not be null). */
    TablePlan after(Object[] upTo) {
        return new TablePlan(table, key, nextIndex + 1, upTo);
    }

    @Override
    public String toString() {
        return table + " next chunk " + nextIndex;
    }
}
