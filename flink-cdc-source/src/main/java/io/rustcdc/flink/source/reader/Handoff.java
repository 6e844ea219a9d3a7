package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkOrigins;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
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
 *
 * <p>A table added while the stream runs is read chunk by chunk between stream batches, so its
 * handoff is incomplete for a while. A change to a key whose chunk is not read yet is dropped: that
 * chunk is read later, in a snapshot taken after the stream delivered the change, so it shows it.
 * This is checked when the chunk arrives, and a change its mark does not reflect fails the source
 * rather than being lost.
 *
 * <p>A chunk read with a row filter ({@link ChunkSplit#rowFilter}) delivered only the rows of its range
 * the filter selected, but its mark says which changes it reflects for every key of the range, delivered
 * or not: the decisions stay per key and need no filter here (which only the database can evaluate). A
 * change a chunk reflects of a row it did not deliver is left out: downstream holds nothing of that row
 * to correct, and the chunk's read showed it outside the filter. Every later change of such a row is
 * emitted (an update or delete of a row downstream never saw, or an insert); none is lost and none
 * turned into another.
 *
 * <p>For a sink that keeps what an attempt that failed emitted ({@link
 * io.rustcdc.flink.source.SinkGuarantee#AT_LEAST_ONCE}), a chunk that attempt may have emitted is
 * {@linkplain ChunkSplit#isRedelivered() redelivered}, and so is every chunk of a table whose
 * snapshot was under way when the stream split was restored, or that the enumerator hands again to
 * a restored stream (see {@link #startTable}): no change of their keys is left out,
 * since the rows the failed attempt emitted may be older than what the new read shows.
 *
 * <p>A chunk of a table being added that was read from another table than the table's earlier chunks
 * (one replaced under its name between them, {@link ChunkOrigins}) fails the source.
 *
 * <p>A table whose key order the connector does not reproduce ({@link ChunkKey#placedByServer}) has its
 * changed keys placed among its chunks by the database ({@link ServerPlacement}): {@link #prepare} asks
 * for the keys of a whole batch of records in one query per such table, before the batch's decisions,
 * and the pending changes of a table being added are placed in one query per chunk that arrives. Not
 * thread-safe.
 */
@Internal
final class Handoff<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private final CdcConnector<P, M> connector;
    private final Map<TableId, TableChunks<P, M>> tables = new HashMap<>();
    private final Map<TableId, P> ends = new HashMap<>();
    private final ChunkOrigins<M> origins;
    private final ServerPlacement<P, M> placement;

    /**
     * @param chunks the read chunks of every table in the handoff
     * @param adding the tables still being read (their chunks so far are among {@code chunks})
     * @param captured the tables the stream captures: one of them among {@code adding} is being read
     *     again (see {@link #rereadTable})
     * @param redeliverAdding whether the chunks of {@code adding} still to be read are redelivered
     *     (a restored stream, for a sink that keeps a failed attempt's records)
     */
    Handoff(CdcConnector<P, M> connector, List<ChunkSplit<M>> chunks, List<TablePlan> adding, boolean redeliverAdding) {
        this(connector, chunks, adding, java.util.Set.of(), redeliverAdding);
    }

    Handoff(CdcConnector<P, M> connector, List<ChunkSplit<M>> chunks, List<TablePlan> adding,
            java.util.Set<TableId> captured, boolean redeliverAdding) {
        this.connector = connector;
        this.origins = new ChunkOrigins<>(connector::tableIdentity);
        this.placement = new ServerPlacement<>(connector);
        for (TablePlan plan : adding) {
            TableChunks<P, M> t = new TableChunks<>(placement, plan.key(), new ArrayList<>(), false);
            t.redelivering = redeliverAdding || captured.contains(plan.table());
            tables.put(plan.table(), t);
        }
        Map<TableId, List<ChunkSplit<M>>> byTable = new HashMap<>();
        for (ChunkSplit<M> c : chunks) {
            origins.read(c);
            byTable.computeIfAbsent(c.table(), t -> new ArrayList<>()).add(c);
        }
        byTable.forEach((table, list) -> {
            list.sort(Comparator.comparingInt(ChunkSplit::index));
            TableChunks<P, M> t = tables.computeIfAbsent(table,
                    k -> new TableChunks<>(placement, list.get(0).key(), new ArrayList<>(), true));
            t.chunks.addAll(list);
            if (t.complete) {
                list.forEach(c -> extendEnd(c));
            }
        });
    }

    /**
     * Starts the handoff of a table added while the stream runs: no chunk of it is read yet; {@code
     * redelivered}: an attempt that failed may have emitted some (see the class comment).
     */
    void startTable(TableId table, ChunkKey key, boolean redelivered) {
        TableChunks<P, M> t = new TableChunks<>(placement, key, new ArrayList<>(), false);
        t.redelivering = redelivered;
        tables.putIfAbsent(table, t);
    }

    /**
     * Starts reading again a table the stream captures (an on-demand request): downstream holds its
     * rows already, so no change of it is left out while it is read, nor after (its chunks are
     * redelivered): a change its chunk already shows is emitted too, and a row goes out again. A sink
     * applying the changelog by key ends in the table's state; a change left out here could be a
     * delete of a row downstream holds, which no chunk shows. Requested while the stream has not yet passed
     * the chunks downstream holds (the first snapshot's, say), a change one of them shows is still left out:
     * downstream has it from that chunk, and the new read delivers the row again.
     */
    void rereadTable(TableId table, ChunkKey key) {
        TableChunks<P, M> t = new TableChunks<>(placement, key, new ArrayList<>(), false);
        t.redelivering = true;
        TableChunks<P, M> before = tables.get(table);
        P end = ends.get(table);
        if (before != null && before.complete && end != null && before.key.equals(key)) {
            // the stream has not passed the chunks downstream holds yet: a change they show was delivered with them
            t.earlier = before;
            t.earlierEnd = end;
        }
        tables.put(table, t);
        ends.remove(table);
        origins.forget(table);
    }

    /**
     * Whether rows of {@code table}, being added, may have gone out: a chunk of it is in the handoff, or its chunks
     * are redelivered (an attempt that failed may have emitted some).
     */
    boolean delivered(TableId table) {
        TableChunks<P, M> t = tables.get(table);
        return t != null && (!t.chunks.isEmpty() || t.redelivering);
    }

    /** Forgets a table whose snapshot was stopped: its changes are emitted as they come, if it is captured. */
    void dropTable(TableId table) {
        tables.remove(table);
        ends.remove(table);
        origins.forget(table);
    }

    /**
     * Adds a chunk of a table being added, read after every change emitted so far; {@code last}
     * completes the table.
     *
     * @throws CdcException when a change dropped for this chunk is not in it (a {@link CdcException.Kind#RESTART}),
     *     or the chunk was read from another table than the table's chunks before it
     */
    void addChunk(ChunkSplit<M> chunk, boolean last) {
        origins.read(chunk);
        TableChunks<P, M> t = tables.get(chunk.table());
        t.add(t.redelivering ? chunk.redelivered() : chunk);
        List<ChunkSplit<M>> holding = t.key.placedByServer() ? t.placeAll(t.pending) : null;
        int i = 0;
        for (Iterator<TableChunks.Pending<P>> it = t.pending.iterator(); it.hasNext(); i++) {
            TableChunks.Pending<P> p = it.next();
            if (holding != null ? holding.get(i) == t.chunks.get(t.chunks.size() - 1) : t.contains(chunk, p.key)) {
                if (!connector.reflects(chunk.mark(), p.position)) {
                    // the stream may deliver a commit a moment before new snapshots see it: a restart reads again
                    throw new CdcException(CdcException.Kind.RESTART, "A change of " + chunk.table() + " at " + p.position
                            + ", delivered while the table's snapshot was being read, is not in the chunk read after it ("
                            + chunk.splitId() + "). Nothing was lost: the source fails so that it restarts from its last "
                            + "checkpoint and reads the chunk again.");
                }
                it.remove();
            }
        }
        if (last) {
            t.complete = true;
            t.pending.clear();
            t.chunks.forEach(this::extendEnd);
        }
    }

    private void extendEnd(ChunkSplit<M> c) {
        ends.merge(c.table(), connector.handoffEnd(c.mark()), (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }

    boolean isEmpty() {
        return tables.isEmpty();
    }

    /**
     * Places the keys of {@code records}' changes of tables whose keys the database places, in one query
     * per such table (and per set of chunks it holds), before their decisions; no query for a batch of
     * other tables.
     */
    void prepare(List<? extends io.rustcdc.flink.source.spi.StreamRecord<P>> records) {
        Map<TableChunks<P, M>, List<Object[]>> wanted = new HashMap<>();
        for (io.rustcdc.flink.source.spi.StreamRecord<P> r : records) {
            ChangeEvent e = r.event();
            TableChunks<P, M> t = e == null ? null : tables.get(e.table());
            if (t == null || !t.key.placedByServer()
                    || (e.op() != Op.INSERT && e.op() != Op.UPDATE && e.op() != Op.DELETE)) {
                continue;
            }
            for (Row row : new Row[] {e.before(), e.after()}) {
                if (row != null && t.hasKey(row)) {
                    wanted.computeIfAbsent(t, k -> new ArrayList<>()).add(t.key(row));
                    if (t.earlier != null) {
                        wanted.computeIfAbsent(t.earlier, k -> new ArrayList<>()).add(t.earlier.key(row));
                    }
                }
            }
        }
        tables.values().forEach(t -> t.forgetPlaced());
        wanted.forEach(TableChunks::placeAhead);
    }

    /** Closes the session that placed keys, if one was opened. */
    void close() {
        placement.close();
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
                origins.forget(e.getKey());
                it.remove();
            }
        }
    }

    /** What to emit for {@code event} at {@code position}: the event, a narrowed event, or null for nothing. */
    @Nullable
    ChangeEvent decide(ChangeEvent event, P position) {
        TableChunks<P, M> chunks = tables.get(event.table());
        if (chunks == null) {
            return event;
        }
        switch (event.op()) {
            case INSERT:
                return reflected(chunks, event.after(), position) ? null : event;
            case DELETE:
                return reflected(chunks, keyed(chunks, event, event.before(), position), position) ? null : event;
            case UPDATE:
                return update(chunks, event, position);
            case TRUNCATE:
                return truncate(chunks, event, position);
            case SCHEMA_CHANGE:
                if (endsTheTable(event)) {
                    return tableEnded(chunks, event, position);
                }
                return mayEndTheTable(event) ? unclassifiedCreate(chunks, event, position) : event;
            default:
                return event;
        }
    }

    @Nullable
    private ChangeEvent update(TableChunks<P, M> chunks, ChangeEvent event, P position) {
        Row before = event.before();
        // no old row: the database logs none when the key (a part of the old row it logs) did not change
        boolean oldReflected = reflected(chunks, before == null ? event.after() : keyed(chunks, event, before, position),
                position);
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

    /**
     * {@code old}, the old row of {@code event}, when it carries the chunk key; the connector checks that it does when
     * it plans the table, but a table's logging may change later, or a state come from before that check.
     *
     * @throws CdcException (prerequisite) naming the table, the key and what to do
     */
    private Row keyed(TableChunks<P, M> chunks, ChangeEvent event, @Nullable Row old, P position) {
        if (old != null && chunks.hasKey(old)) {
            return old;
        }
        throw new CdcException(CdcException.Kind.PREREQUISITE, "The " + event.op().name().toLowerCase(java.util.Locale.ROOT)
                + " of table " + event.table().qualifiedName() + " at " + position + " has an old row without its chunk "
                + "key " + chunks.key.columns() + (old == null ? " (none at all)" : " (it lacks " + lacking(chunks, old) + ")")
                + ", by which the handoff from the table's snapshot to its stream "
                + "places it among the chunks: the database logged the old row without the key (on PostgreSQL, by the "
                + "table's REPLICA IDENTITY, changed since the source started, or a state from before the source checked "
                + "it). Make the old rows carry the key (REPLICA IDENTITY FULL on PostgreSQL) and start the source again "
                + "without its state, as the changes already logged lack it.");
    }

    private static List<String> lacking(TableChunks<?, ?> chunks, Row row) {
        List<String> absent = row.absentFields();
        return chunks.key.columns().stream().filter(c -> row.type().indexOf(c) < 0 || absent.contains(c)).toList();
    }

    private int reflecting(TableChunks<P, M> chunks, P position) {
        int reflecting = 0;
        for (ChunkSplit<M> c : chunks.chunks) {
            if (connector.reflects(c.mark(), position)) {
                reflecting++;
            }
        }
        return reflecting;
    }

    /** A schema change after which the table's name no longer denotes the rows its chunks read before it. */
    private static boolean endsTheTable(ChangeEvent event) {
        if (SchemaChangeRows.ddlType(event.after()) == DdlType.DROP_TABLE) {
            return true;
        }
        for (ShapeChange c : event.shapeChanges()) {
            if (c.kind() == ShapeChange.Kind.TABLE_DROPPED || c.kind() == ShapeChange.Kind.TABLE_REPLACED) {
                return true;
            }
        }
        return false;
    }

    /**
     * A table dropped, renamed away or replaced while its snapshot was read. Every chunk read before
     * it: the event follows the old table's rows, as it should. Every chunk read after it: the chunks
     * showed only what the name denotes now, and the event, which would tell downstream to forget
     * those rows, is not emitted (as a truncate every chunk shows). Some of each: the snapshot mixes
     * two tables, which no changelog shows exactly, so the source fails.
     */
    @Nullable
    private ChangeEvent tableEnded(TableChunks<P, M> chunks, ChangeEvent event, P position) {
        int reflecting = reflecting(chunks, position);
        if (reflecting == 0) {
            return event;
        }
        if (reflecting == chunks.chunks.size()) {
            return null;
        }
        throw new CdcException(CdcException.Kind.STATE, "Table " + event.table() + " was dropped, renamed or replaced "
                + "at " + position + " while its snapshot was read: " + reflecting + " of its " + chunks.chunks.size()
                + " chunks were read after that and the others before, from the table that is gone, so no changelog "
                + "can show it exactly. Start the source without state to snapshot the table again (a restore from a "
                + "checkpoint would keep the chunks already read), or leave the table out.");
    }

    /**
     * A CREATE TABLE of the name that its connector could not classify (an {@code unknown} change, or none):
     * it may have replaced the table, which existed when its chunks were read (MariaDB's {@code CREATE OR
     * REPLACE TABLE} of a table whose shape the stream held not).
     */
    private static boolean mayEndTheTable(ChangeEvent event) {
        return SchemaChangeRows.ddlType(event.after()) == DdlType.CREATE_TABLE && (event.shapeChanges().isEmpty()
                || event.shapeChanges().stream().anyMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN));
    }

    /**
     * A CREATE TABLE that may have replaced the table ({@link #mayEndTheTable}) while its snapshot was read:
     * some chunks read before it and some after may come from two tables, which no changelog shows exactly,
     * so the source fails rather than mix them silently. Every chunk on one side of it: the event as it is.
     */
    private ChangeEvent unclassifiedCreate(TableChunks<P, M> chunks, ChangeEvent event, P position) {
        int reflecting = reflecting(chunks, position);
        if (reflecting == 0 || reflecting == chunks.chunks.size()) {
            return event;
        }
        String why = event.shapeChanges().stream().filter(c -> c.kind() == ShapeChange.Kind.UNKNOWN)
                .map(ShapeChange::reason).filter(r -> !r.isEmpty()).findFirst().orElse("not classified");
        throw new CdcException(CdcException.Kind.STATE, "Table " + event.table() + " was created at " + position
                + " by a statement that may have replaced it (" + why + ") while its snapshot was read: " + reflecting
                + " of its " + chunks.chunks.size() + " chunks were read after that and the others before, possibly "
                + "from another table, so no changelog can show it exactly. Start the source without state to "
                + "snapshot the table again (a restore from a checkpoint would keep the chunks already read), or leave "
                + "the table out.");
    }

    @Nullable
    private ChangeEvent truncate(TableChunks<P, M> chunks, ChangeEvent event, P position) {
        int reflecting = reflecting(chunks, position);
        if (reflecting == 0) {
            return event; // chunks read later (of a table being added) show the truncate by themselves
        }
        if (reflecting == chunks.chunks.size()) {
            return null; // chunks not read yet, of a table being added, will show it too
        }
        throw new CdcException(CdcException.Kind.STATE, "Table " + event.table() + " was truncated while its snapshot "
                + "was read: " + reflecting + " of its " + chunks.chunks.size() + " chunks were read after the truncate "
                + "and the others before, so no changelog can show it exactly. Restart the source without state to "
                + "snapshot the table again.");
    }

    private boolean reflected(TableChunks<P, M> chunks, Row row, P position) {
        Object[] key = chunks.key(row);
        if (chunks.earlier != null && position.compareTo(chunks.earlierEnd) < 0) {
            ChunkSplit<M> shown = chunks.earlier.find(key);
            if (!shown.isRedelivered() && connector.reflects(shown.mark(), position)) {
                return true; // downstream has it from the chunk it holds, read before the table was requested again
            }
        }
        ChunkSplit<M> chunk = chunks.find(key);
        if (chunk == null) {
            if (chunks.redelivering) {
                return false;
            }
            chunks.pending.add(new TableChunks.Pending<>(key, position)); // its chunk, read later, will show it
            return true;
        }
        return !chunk.isRedelivered() && connector.reflects(chunk.mark(), position);
    }
}
