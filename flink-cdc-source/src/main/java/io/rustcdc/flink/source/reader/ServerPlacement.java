package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.LazySession;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Asks the database which chunk holds keys whose order the connector does not reproduce ({@link
 * ChunkKey#placedByServer}): a whole batch of keys per query, on a catalogue session of its own, opened
 * on first use (a reader whose handoff holds no such table never opens it) and closed with the reader.
 * Not thread-safe: the task thread's, as the handoff is.
 */
final class ServerPlacement<P extends SourcePosition & Comparable<P>, M extends Serializable> implements AutoCloseable {
    private final LazySession<P, M> session;

    ServerPlacement(CdcConnector<P, M> connector) {
        this.session = new LazySession<>(connector);
    }

    /**
     * For each of {@code keys}, how many of {@code bounds} (ascending, as the database found them) sort
     * before it in the database's order of {@code key}, in the collations the chunks were planned in; one query.
     */
    int[] place(TableId table, ChunkKey key, List<Object[]> bounds, List<Object[]> keys) {
        if (keys.isEmpty() || bounds.isEmpty()) {
            return new int[keys.size()]; // one chunk (a table read whole): nothing to ask
        }
        int[] ranks = session.get().placeKeys(table, key.columns(), key.types(), key.collations(), bounds, keys);
        if (ranks.length != keys.size()) {
            throw new IllegalStateException("The connector placed " + ranks.length + " keys of " + table + " for "
                    + keys.size() + " asked");
        }
        for (int r : ranks) {
            if (r < 0 || r > bounds.size()) {
                throw new IllegalStateException("The connector placed a key of " + table + " at " + r + " among "
                        + bounds.size() + " chunk bounds");
            }
        }
        return ranks;
    }

    /** The chunks' upper bounds in order, checked to follow one another without a gap. */
    static List<Object[]> bounds(List<? extends ChunkSplit<?>> chunks) {
        List<Object[]> bounds = new ArrayList<>();
        Object[] previous = null;
        for (int i = 0; i < chunks.size(); i++) {
            ChunkSplit<?> c = chunks.get(i);
            if (!Arrays.deepEquals(c.after(), previous) || (previous == null && i > 0)) {
                throw new IllegalStateException("The chunks of " + c.table() + " do not follow one another ("
                        + c.splitId() + "), so the database cannot place keys among them");
            }
            if (c.upTo() != null) {
                bounds.add(c.upTo());
            }
            previous = c.upTo();
        }
        return bounds;
    }

    @Override
    public void close() {
        session.close();
    }

    /** A key's values as a map key: equal when their values are. */
    static final class Key {
        private final Object[] values;
        private final int hash;

        Key(Object[] values) {
            this.values = values;
            this.hash = Arrays.deepHashCode(values);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && Arrays.deepEquals(values, ((Key) o).values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
