package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;

/**
 * Which table each table's read chunks came from, as the connector identifies it from a chunk's mark
 * ({@link io.rustcdc.flink.source.spi.CdcConnector#tableIdentity}). Chunks of one table's snapshot are
 * each read in their own snapshot, so a table dropped (or renamed away) and another created (or renamed)
 * under its name between two of them leaves chunks of two tables; where the change stream does not show
 * the replacement (PostgreSQL sends no DROP), nothing else tells; the identity may also name the order the
 * chunk read its key in, which a key column's type or collation changed between two chunks alters. Two
 * identities among a table's chunks fail the source. A chunk whose mark names none (older state) is compared
 * with nothing. Not thread-safe.
 */
@Internal
public final class ChunkOrigins<M> {
    private final Function<? super M, ?> identity;
    /**
     * Per table, the first read chunk whose mark names its origin, and that origin; then each later one whose origin
     * reads otherwise though equal (a connector's identity may leave a part open in marks from older state, which
     * then equals any: a later chunk must equal every origin kept).
     */
    private final Map<TableId, List<Origin>> origins = new HashMap<>();

    /** @param identity the connector's {@code tableIdentity} */
    public ChunkOrigins(Function<? super M, ?> identity) {
        this.identity = Objects.requireNonNull(identity, "identity");
    }

    /**
     * Takes note of a read chunk of its table's current snapshot.
     *
     * @throws CdcException of kind STATE when an earlier chunk of that snapshot came from another table
     */
    public void read(ChunkSplit<M> chunk) {
        Object origin = identity.apply(Objects.requireNonNull(chunk.mark(), "a read chunk's mark"));
        if (origin == null) {
            return;
        }
        List<Origin> kept = origins.computeIfAbsent(chunk.table(), t -> new ArrayList<>());
        for (Origin o : kept) {
            if (!o.identity.equals(origin)) {
                throw twoTables(chunk.table(), o, chunk.index(), origin);
            }
        }
        if (kept.stream().noneMatch(o -> o.identity.toString().equals(origin.toString()))) {
            kept.add(new Origin(chunk.index(), origin));
        }
    }

    /** Forgets {@code table}'s chunks: its snapshot ended, was stopped, or starts again. */
    public void forget(TableId table) {
        origins.remove(table);
    }

    /** Forgets every table's chunks. */
    public void clear() {
        origins.clear();
    }

    static CdcException twoTables(TableId table, Origin first, int index, Object origin) {
        return new CdcException(CdcException.Kind.STATE, "Table " + table.qualifiedName() + " was replaced while "
                + "its snapshot was read (dropped or renamed away, and another table created or renamed under its "
                + "name), or the order of its chunk key changed: its chunks come from two tables or were read in two key "
                + "orders (chunk " + first.index + " from " + first.identity
                + ", chunk " + index + " from " + origin + "), so no changelog can show it exactly. Start the source "
                + "without state to snapshot the table again (a restore from a checkpoint would keep the chunks "
                + "already read), or leave the table out.");
    }

    /** The first chunk of a table whose mark named its origin. */
    private static final class Origin {
        final int index;
        final Object identity;

        Origin(int index, Object identity) {
            this.index = index;
            this.identity = identity;
        }
    }
}
