package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * One table's read chunks in the {@link Handoff}, in key order: finds the chunk holding a key, by the key's order or by
 * the database's placement ({@link ServerPlacement}), and holds the changes dropped for chunks not read yet. Not
 * thread-safe.
 */
final class TableChunks<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private final ServerPlacement<P, M> placement;
    final ChunkKey key;
    final List<ChunkSplit<M>> chunks;
    final String[] columns;
    final List<Pending<P>> pending = new ArrayList<>();
    boolean complete;
    /** Whether the chunks still to be read are redelivered (see {@link Handoff}). */
    boolean redelivering;
    /**
     * A table read again: its chunks downstream holds, until the stream passes {@link #earlierEnd} (null
     * after a restore, which leaves out nothing then).
     */
    @Nullable TableChunks<P, M> earlier;
    @Nullable P earlierEnd;
    /** The upper bounds of {@link #chunks} in order, for the database's placement; null until asked. */
    @Nullable private List<Object[]> bounds;
    /** Keys placed by the database for the batch being decided ({@link Handoff#prepare}): how many bounds precede each. */
    private Map<ServerPlacement.Key, Integer> placed = new HashMap<>();

    TableChunks(ServerPlacement<P, M> placement, ChunkKey key, List<ChunkSplit<M>> chunks, boolean complete) {
        this.placement = placement;
        this.key = key;
        this.chunks = chunks;
        this.columns = key.columns().toArray(new String[0]);
        this.complete = complete;
    }

    boolean hasKey(Row row) {
        for (String c : columns) {
            int i = row.type().indexOf(c);
            if (i < 0 || !row.isPresent(i)) {
                return false;
            }
        }
        return true;
    }

    Object[] key(Row row) {
        Object[] values = new Object[columns.length];
        for (int i = 0; i < columns.length; i++) {
            values[i] = row.get(columns[i]);
        }
        return values;
    }

    void add(ChunkSplit<M> chunk) {
        chunks.add(chunk);
        bounds = null;
        placed = new HashMap<>();
    }

    void forgetPlaced() {
        if (!placed.isEmpty()) {
            placed = new HashMap<>();
        }
        if (earlier != null) {
            earlier.forgetPlaced();
        }
    }

    /** Places {@code keys} by the database, in one query, for {@link #find}. */
    void placeAhead(List<Object[]> keys) {
        if (chunks.isEmpty()) {
            return; // a table being added, none of its chunks read yet: its changes wait for them
        }
        List<Object[]> distinct = new ArrayList<>();
        for (Object[] k : keys) {
            if (placed.putIfAbsent(new ServerPlacement.Key(k), -1) == null) {
                distinct.add(k);
            }
        }
        int[] ranks = placed(distinct);
        for (int i = 0; i < ranks.length; i++) {
            placed.put(new ServerPlacement.Key(distinct.get(i)), ranks[i]);
        }
    }

    /** The chunk holding each pending change's key, as {@link #find} says, in one query. */
    List<ChunkSplit<M>> placeAll(List<Pending<P>> pending) {
        List<Object[]> keys = new ArrayList<>();
        pending.forEach(p -> keys.add(p.key));
        int[] ranks = placed(keys);
        List<ChunkSplit<M>> holding = new ArrayList<>();
        for (int r : ranks) {
            holding.add(r < chunks.size() ? chunks.get(r) : null);
        }
        return holding;
    }

    /**
     * {@code keys} placed by the database among the chunks' bounds; a key the connector cannot bind as the bounds'
     * type (a key column retyped while the table was snapshotted) fails as {@link #compare} does.
     */
    private int[] placed(List<Object[]> keys) {
        try {
            return placement.place(chunks.get(0).table(), key, bounds(), keys);
        } catch (ClassCastException e) {
            Object[] bound = bounds().isEmpty() ? new Object[0] : bounds().get(0);
            Object[] retyped = keys.stream().filter(k -> !classes(k).equals(classes(bound))).findFirst()
                    .orElse(keys.isEmpty() ? new Object[0] : keys.get(0));
            throw retyped(retyped, bound, e);
        }
    }

    private List<Object[]> bounds() {
        if (bounds == null) {
            bounds = ServerPlacement.bounds(chunks);
        }
        return bounds;
    }

    /** Whether {@code values} lies in {@code chunk}'s range ({@link ChunkSplit#contains}), failing as {@link #compare} does. */
    boolean contains(ChunkSplit<M> chunk, Object[] values) {
        try {
            return chunk.contains(values);
        } catch (ClassCastException e) {
            throw retyped(values, chunk.after() != null ? chunk.after() : chunk.upTo(), e);
        }
    }

    /**
     * {@code values} against a chunk bound in the key's order; a key the stream decodes as another type than the
     * bounds were planned with (a key column's type changed while the table was snapshotted or handed off) fails
     * the source, naming the table: which chunk holds it is unknown.
     */
    private int compare(Object[] values, Object[] bound) {
        try {
            return key.compare(values, bound);
        } catch (ClassCastException e) {
            throw retyped(values, bound, e);
        }
    }

    private CdcException retyped(Object[] values, Object[] bound, ClassCastException e) {
        return new CdcException(CdcException.Kind.STATE, "The key " + key.columns() + " of a change of table "
                + chunks.get(0).table().qualifiedName() + " reads as (" + classes(values) + "), but the table's "
                + "snapshot chunks were planned with keys of (" + classes(bound) + "): a key column's type changed "
                + "while the table was snapshotted, so the source cannot tell which chunk holds the changed row. "
                + "Start the job without its state so that the table is snapshotted again.", e);
    }

    private static String classes(Object[] values) {
        return Arrays.stream(values).map(v -> v == null ? "null" : v.getClass().getSimpleName())
                .collect(Collectors.joining(", "));
    }

    /** The chunk holding {@code values}; null when it is not read yet (tables being added only). */
    @Nullable
    ChunkSplit<M> find(Object[] values) {
        if (key.placedByServer()) {
            return placedChunk(values);
        }
        int low = 0;
        int high = chunks.size() - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            ChunkSplit<M> c = chunks.get(mid);
            if (c.after() != null && compare(values, c.after()) <= 0) {
                high = mid - 1;
            } else if (c.upTo() != null && compare(values, c.upTo()) > 0) {
                low = mid + 1;
            } else {
                return c;
            }
        }
        if (!complete) {
            return null;
        }
        throw new IllegalStateException("No chunk of " + chunks.get(0).table() + " holds a key; its chunks do not "
                + "cover the key space");
    }

    /** {@link #find} by the database's placement: placed ahead for the batch, else asked now alone. */
    @Nullable
    private ChunkSplit<M> placedChunk(Object[] values) {
        if (chunks.isEmpty()) {
            return null; // a table being added, none of its chunks read yet
        }
        Integer rank = placed.get(new ServerPlacement.Key(values));
        if (rank == null || rank < 0) {
            rank = placed(List.<Object[]>of(values))[0];
        }
        if (rank < chunks.size()) {
            return chunks.get(rank);
        }
        if (!complete) {
            return null;
        }
        throw new IllegalStateException("No chunk of " + chunks.get(0).table() + " holds a key the database placed "
                + "after its " + chunks.size() + " chunks; its chunks do not cover the key space");
    }

    /** A change dropped because the chunk of its key was not read yet. */
    static final class Pending<P> {
        final Object[] key;
        final P position;

        Pending(Object[] key, P position) {
            this.key = key;
            this.position = position;
        }
    }
}
