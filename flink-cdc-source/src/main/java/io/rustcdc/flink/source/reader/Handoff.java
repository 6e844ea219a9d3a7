package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.KeyOrder;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * The exact handoff from snapshot chunks to the stream: each change of a snapshotted table is
 * emitted only for the keys whose chunk did not already reflect it.
 *
 * <p>An insert or delete is dropped when its key's chunk reflects it. An update whose old and new
 * keys fall in chunks that disagree becomes a delete of the old row (its chunk showed it, the new
 * row's chunk already showed the new one) or an insert of the new row (the old row's chunk no
 * longer showed it). So downstream sees each row once from the snapshot, then exactly the changes
 * after the state it was read in, and never a retraction of a row it did not see. A table leaves
 * the handoff once the stream passes the point where any of its chunks could reflect a change.
 * Not thread-safe.
 */
@Internal
final class Handoff<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private final CdcConnector<P, M> connector;
    private final Map<TableId, TableChunks<M>> tables = new HashMap<>();
    private final Map<TableId, P> ends = new HashMap<>();

    Handoff(CdcConnector<P, M> connector, List<ChunkSplit<M>> chunks) {
        this.connector = connector;
        Map<TableId, List<ChunkSplit<M>>> byTable = new HashMap<>();
        for (ChunkSplit<M> c : chunks) {
            byTable.computeIfAbsent(c.table(), t -> new ArrayList<>()).add(c);
            P end = connector.handoffEnd(c.mark());
            ends.merge(c.table(), end, (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
        byTable.forEach((table, list) -> {
            list.sort(Comparator.comparingInt(ChunkSplit::index));
            tables.put(table, new TableChunks<>(list.get(0).key(), list));
        });
    }

    boolean isEmpty() {
        return tables.isEmpty();
    }

    /** The chunks still consulted, for the stream split's state. */
    List<ChunkSplit<M>> remaining() {
        List<ChunkSplit<M>> all = new ArrayList<>();
        tables.values().forEach(t -> all.addAll(t.chunks));
        return all;
    }

    /** Forgets the tables whose chunks cannot reflect a change at or after {@code position}. */
    void advance(P position) {
        for (Iterator<Map.Entry<TableId, P>> it = ends.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TableId, P> e = it.next();
            if (e.getValue().compareTo(position) <= 0) {
                tables.remove(e.getKey());
                it.remove();
            }
        }
    }

    /** What to emit for {@code event} at {@code position}: the event, a narrowed event, or null for nothing. */
    @Nullable
    ChangeEvent decide(ChangeEvent event, P position) {
        TableChunks<M> chunks = tables.get(event.table());
        if (chunks == null) {
            return event;
        }
        switch (event.op()) {
            case INSERT:
                return reflected(chunks, event.after(), position) ? null : event;
            case DELETE:
                return reflected(chunks, event.before(), position) ? null : event;
            case UPDATE:
                return update(chunks, event, position);
            case TRUNCATE:
                return truncate(chunks, event, position);
            default:
                return event;
        }
    }

    @Nullable
    private ChangeEvent update(TableChunks<M> chunks, ChangeEvent event, P position) {
        Row before = event.before();
        boolean beforeHasKey = before != null && chunks.hasKey(before);
        boolean oldReflected = reflected(chunks, beforeHasKey ? before : event.after(), position);
        boolean newReflected = reflected(chunks, event.after(), position);
        if (oldReflected && newReflected) {
            return null;
        }
        if (!oldReflected && !newReflected) {
            return event;
        }
        ChangeEvent.Builder narrowed = ChangeEvent.builder(oldReflected ? Op.INSERT : Op.DELETE, event.table(),
                event.source()).shape(event.shape()).transaction(event.transaction());
        return oldReflected ? narrowed.after(event.after()).build() : narrowed.before(before).build();
    }

    @Nullable
    private ChangeEvent truncate(TableChunks<M> chunks, ChangeEvent event, P position) {
        int reflecting = 0;
        for (ChunkSplit<M> c : chunks.chunks) {
            if (connector.reflects(c.mark(), position)) {
                reflecting++;
            }
        }
        if (reflecting == 0) {
            return event;
        }
        if (reflecting == chunks.chunks.size()) {
            return null;
        }
        throw new CdcException(CdcException.Kind.STATE, "Table " + event.table() + " was truncated while its snapshot "
                + "was read: " + reflecting + " of its " + chunks.chunks.size() + " chunks were read after the truncate "
                + "and the others before, so no changelog can show it exactly. Restart the source without state to "
                + "snapshot the table again.");
    }

    private boolean reflected(TableChunks<M> chunks, Row row, P position) {
        return connector.reflects(chunks.find(chunks.key(row)).mark(), position);
    }

    /** One table's read chunks, in key order. */
    private static final class TableChunks<M> {
        final ChunkKey key;
        final List<ChunkSplit<M>> chunks;
        final String[] columns;

        TableChunks(ChunkKey key, List<ChunkSplit<M>> chunks) {
            this.key = key;
            this.chunks = chunks;
            this.columns = key.columns().toArray(new String[0]);
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

        ChunkSplit<M> find(Object[] values) {
            int low = 0;
            int high = chunks.size() - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                ChunkSplit<M> c = chunks.get(mid);
                if (c.after() != null && KeyOrder.compare(key.types(), values, c.after()) <= 0) {
                    high = mid - 1;
                } else if (c.upTo() != null && KeyOrder.compare(key.types(), values, c.upTo()) > 0) {
                    low = mid + 1;
                } else {
                    return c;
                }
            }
            throw new IllegalStateException("No chunk of " + chunks.get(0).table() + " holds a key; its chunks do not "
                    + "cover the key space");
        }
    }
}
