package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * One key range of one table: the rows whose chunk key lies in ({@code after}, {@code upTo}], an
 * open end where null. Once read, it carries its mark (what it reflects) until the enumerator has
 * taken note of it. Immutable.
 */
@Internal
public final class ChunkSplit<M> extends CdcSplit implements Serializable {
    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final ChunkKey key;
    private final int index;
    @Nullable private final Object[] after;
    @Nullable private final Object[] upTo;
    @Nullable private final M mark;
    private final boolean redelivered;
    @Nullable private final String rowFilter;

    private ChunkSplit(TableId table, ChunkKey key, int index, @Nullable Object[] after, @Nullable Object[] upTo,
            @Nullable M mark, boolean redelivered, @Nullable String rowFilter) {
        this.table = Objects.requireNonNull(table, "table");
        this.key = Objects.requireNonNull(key, "key");
        this.index = index;
        this.after = after;
        this.upTo = upTo;
        this.mark = mark;
        this.redelivered = redelivered;
        this.rowFilter = rowFilter;
    }

    public static <M> ChunkSplit<M> of(TableId table, ChunkKey key, int index, @Nullable Object[] after,
            @Nullable Object[] upTo) {
        return of(table, key, index, after, upTo, null);
    }

    /** A chunk of the rows {@code rowFilter} selects (null: every row); see {@link TablePlan#rowFilter}. */
    public static <M> ChunkSplit<M> of(TableId table, ChunkKey key, int index, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter) {
        return new ChunkSplit<>(table, key, index, after, upTo, null, false, rowFilter);
    }

    /** The same chunk, read, with what it reflects. */
    public ChunkSplit<M> finished(M mark) {
        return new ChunkSplit<>(table, key, index, after, upTo, Objects.requireNonNull(mark, "mark"), redelivered,
                rowFilter);
    }

    /**
     * The same chunk, read (or to be read) after a restore, by a source whose sink may have kept what
     * a failed attempt emitted of it ({@link io.rustcdc.flink.source.SinkGuarantee#AT_LEAST_ONCE}).
     */
    public ChunkSplit<M> redelivered() {
        return redelivered ? this : new ChunkSplit<>(table, key, index, after, upTo, mark, true, rowFilter);
    }

    /**
     * Whether an attempt that failed may have emitted this chunk into a sink that kept it: the
     * handoff then leaves out no change of its keys.
     */
    public boolean isRedelivered() {
        return redelivered;
    }

    static <M> ChunkSplit<M> restore(TableId table, ChunkKey key, int index, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable M mark, boolean redelivered, @Nullable String rowFilter) {
        return new ChunkSplit<>(table, key, index, after, upTo, mark, redelivered, rowFilter);
    }

    @Override
    public String splitId() {
        return "chunk:" + table + ":" + index;
    }

    public TableId table() {
        return table;
    }

    public ChunkKey key() {
        return key;
    }

    /** The chunk's number within its table, from 0. */
    public int index() {
        return index;
    }

    @Nullable
    public Object[] after() {
        return after;
    }

    @Nullable
    public Object[] upTo() {
        return upTo;
    }

    /** The rows of the range the chunk holds: those this raw SQL condition selects; null for every row. */
    @Nullable
    public String rowFilter() {
        return rowFilter;
    }

    /** What the chunk reflects once read; null while unread. */
    @Nullable
    public M mark() {
        return mark;
    }

    /** Whether {@code keyValues} lies in this chunk's range, in the database's order of the key. */
    public boolean contains(Object[] keyValues) {
        return (after == null || key.compare(keyValues, after) > 0) && (upTo == null || key.compare(keyValues, upTo) <= 0);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChunkSplit<?> c)) {
            return false;
        }
        return table.equals(c.table) && key.equals(c.key) && index == c.index && Arrays.deepEquals(after, c.after)
                && Arrays.deepEquals(upTo, c.upTo) && Objects.equals(mark, c.mark) && redelivered == c.redelivered
                && Objects.equals(rowFilter, c.rowFilter);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, index, mark);
    }

    /** Keys may be confidential: only the table, the chunk number and the mark. */
    @Override
    public String toString() {
        return splitId() + (mark == null ? "" : " read, " + mark) + (redelivered ? ", redelivered" : "");
    }
}
