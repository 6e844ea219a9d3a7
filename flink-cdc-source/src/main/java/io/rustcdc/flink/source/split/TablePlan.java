package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.TableId;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * How far a table's chunks are planned: the next chunk's number and lower bound. Chunk bounds are
 * found one at a time, when a reader asks, so the plan of a 100M-row table stays this small.
 * Immutable; planning a chunk gives the next plan.
 */
@Internal
public final class TablePlan implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final ChunkKey key;
    private final int nextIndex;
    @Nullable private final Object[] nextAfter;
    @Nullable private final String rowFilter;

    public TablePlan(TableId table, ChunkKey key, int nextIndex, @Nullable Object[] nextAfter) {
        this(table, key, nextIndex, nextAfter, null);
    }

    public TablePlan(TableId table, ChunkKey key, int nextIndex, @Nullable Object[] nextAfter,
            @Nullable String rowFilter) {
        this.table = Objects.requireNonNull(table, "table");
        this.key = Objects.requireNonNull(key, "key");
        this.nextIndex = nextIndex;
        this.nextAfter = nextAfter;
        this.rowFilter = rowFilter;
    }

    public static TablePlan start(TableId table, ChunkKey key) {
        return new TablePlan(table, key, 0, null, null);
    }

    /** The plan of a table's whole snapshot, of the rows {@code rowFilter} selects (null: every row). */
    public static TablePlan start(TableId table, ChunkKey key, @Nullable String rowFilter) {
        return new TablePlan(table, key, 0, null, rowFilter);
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

    /**
     * The row filter of the table's snapshot, fixed when it started (a raw, trusted SQL condition; see
     * {@link io.rustcdc.flink.source.spi.CatalogSession#readChunk(io.rustcdc.flink.source.spi.TableDescription,
     * java.util.List, Object[], Object[], String, java.util.function.Consumer)}); null for every row.
     */
    @Nullable
    public String rowFilter() {
        return rowFilter;
    }

    /** The next chunk, ending at {@code upTo} (null: the rest of the table). */
    public <M> ChunkSplit<M> chunk(@Nullable Object[] upTo) {
        return ChunkSplit.of(table, key, nextIndex, nextAfter, upTo, rowFilter);
    }

    /** The plan after a chunk ending at {@code upTo} (which must not be null). */
    public TablePlan after(Object[] upTo) {
        return new TablePlan(table, key, nextIndex + 1, upTo, rowFilter);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TablePlan)) {
            return false;
        }
        TablePlan p = (TablePlan) o;
        return table.equals(p.table) && key.equals(p.key) && nextIndex == p.nextIndex
                && java.util.Arrays.deepEquals(nextAfter, p.nextAfter) && Objects.equals(rowFilter, p.rowFilter);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, nextIndex);
    }

    @Override
    public String toString() {
        return table + " next chunk " + nextIndex;
    }
}
