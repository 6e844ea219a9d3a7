package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.types.PgType;
import io.rustcdc.flink.postgres.types.TextDecoder;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.history.ShapeDiff;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * Turns pgoutput protocol version 1 messages into {@link StreamRecord}s with exact positions.
 *
 * <p>Each row change, truncated table and transactional logical message of a transaction counts
 * as one unit, captured or not, so a position inside a transaction is the same whatever the table
 * filter; resuming at one skips exactly the units already taken. A commit yields the position
 * after its transaction, as a {@link StreamRecord#transactionEnd} record. Messages of protocol
 * version 2 and later (streamed and prepared transactions) are refused, never skipped. Not thread-safe.
 */
final class PgOutputDecoder {
    private static final long PG_EPOCH_SECONDS = 946_684_800L;
    private static final String CONNECTOR = PostgresConnector.NAME;

    /** What the decoder needs of the catalogue when a RELATION message arrives. */
    interface Catalog {
        PgType type(int oid, int typmod) throws SQLException;

        List<String> primaryKey(int relationOid) throws SQLException;

        /** The relation's live columns now, by name; empty when the relation is gone. */
        Map<String, Attribute> attributes(int relationOid) throws SQLException;

        /** The relation's {@code relfilenode} now (a rewrite changes it); 0 when it has none or is gone. */
        long fileNode(int relationOid) throws SQLException;

        /**
         * Waits until the committed transaction {@code xid} (pgoutput's 32-bit id) is visible to the
         * catalogue's next read (and {@link Reselect}'s), so that they see the tables as it left them.
         */
        void awaitVisible(long xid) throws SQLException;

        /** Whether the catalogue still has relation {@code relationOid}. */
        boolean exists(int relationOid) throws SQLException;
    }

    /** Reads an update's unchanged TOASTed values from the table ({@code toast.reselect}). */
    interface Reselect {
        /**
         * {@code after} with its absent values read from {@code relation}'s table, by the key whose
         * text {@code keyTexts} holds at the positions of the replica identity's columns; {@code after}
         * itself when the row is gone.
         */
        Row fill(PgRelation relation, Row after, String[] keyTexts, PostgresPosition position) throws SQLException;
    }

    /**
     * A column as the catalogue holds it: its attribute number (never reused in a table), type,
     * modifier and NOT NULL.
     */
    /**
     * A column as the catalogue shows it now; {@code filled}: rows written before it was added read a value for it
     * (a default stored as their missing value, an identity, a generated expression), not null; {@code defaulted}: it
     * has a default, which filled the rows before it only if the table was rewritten (a volatile default), not if it
     * was set after the column was added.
     */
    record Attribute(int number, int typeOid, int typmod, boolean notNull, boolean filled, boolean defaulted) {}

    /** The reason of a column added that {@linkplain Attribute#filled fills} the rows before it. */
    static final String FILLED = "the rows before it read its default, identity or generated value, not null";

    private final String database;
    private final String slot;
    private final TableFilter filter;
    private final PostgresPosition from;
    private final Catalog catalog;
    @Nullable private final Reselect reselect;
    private final Map<Integer, PgRelation> relations = new HashMap<>();
    /** The relation id last described under each name, to tell a table replaced (a new id, same name). */
    private final Map<TableId, Integer> relationIds = new HashMap<>();
    /** Each relation's {@code relfilenode} at its last RELATION, to tell a rewrite since ({@link Catalog#fileNode}). */
    private final Map<Integer, Long> fileNodes = new HashMap<>();
    /**
     * What the stream's events said of each table's shape before the position it opened at (its first
     * relation in this stream is compared with it); a table leaves when its first relation arrives.
     */
    private final Map<TableId, RowShape> resumed = new HashMap<>();
    private final Deque<StreamRecord<PostgresPosition>> pending = new ArrayDeque<>();
    /**
     * The captured tables' relation ids as the stream opened ({@link PgPublicationCheck#carried}), until a
     * transaction describes the relation: its first name in the stream must be that one (else it was renamed
     * since), and one of them gone when another relation comes under its name was replaced.
     */
    private final Map<Integer, TableId> opened = new HashMap<>();
    private final Map<TableId, Integer> openedIds = new HashMap<>();

    private boolean resumePending;
    private boolean inTransaction;
    private Lsn txCommitLsn;
    private long txXid;
    /** Whether the catalogue has been seen to show the transaction being decoded. */
    private boolean txVisible;
    private Instant txCommitTime;
    private long txUnits;
    private long txSkip;
    private PostgresPosition position;

    /** @param reselect what reads unchanged TOASTed values an update lacks; null to leave them absent */
    PgOutputDecoder(String database, String slot, TableFilter filter, PostgresPosition from, Catalog catalog,
            @Nullable Reselect reselect) {
        this(database, slot, filter, from, catalog, reselect, Map.of());
    }

    /** @param captured the captured tables by relation id (unsigned) as the stream opens; empty when unknown */
    PgOutputDecoder(String database, String slot, TableFilter filter, PostgresPosition from, Catalog catalog,
            @Nullable Reselect reselect, Map<Long, TableId> captured) {
        captured.forEach((oid, table) -> {
            opened.put(oid.intValue(), table);
            openedIds.put(table, oid.intValue());
        });
        this.database = database;
        this.slot = slot;
        this.filter = filter;
        this.from = from;
        this.catalog = catalog;
        this.reselect = reselect;
        this.position = from;
        this.resumePending = from.eventsTaken() > 0;
    }

    /**
     * The shapes the stream's events showed before its position ({@link
     * io.rustcdc.flink.source.spi.ChangeStream#resumeShapes}): a table's first relation here that differs
     * from its shape there is a schema change, classified by name ({@link ShapeDiff}).
     */
    void resume(EmittedShapes shapes) {
        for (TableId table : shapes.tables()) {
            RowShape shape = shapes.rows(table) != null ? shapes.rows(table) : shapes.leftByChange(table);
            if (shape != null) {
                resumed.put(table, shape);
            }
        }
    }

    /** The next decoded record, or null until more messages arrive. */
    @Nullable
    StreamRecord<PostgresPosition> next() {
        return pending.poll();
    }

    /**
     * A record that only moves the position to {@code serverLsn} (a keepalive's WAL position), when
     * that is safe: between transactions and past the current position; else null.
     */
    @Nullable
    StreamRecord<PostgresPosition> progress(Lsn serverLsn) {
        if (inTransaction || resumePending || !serverLsn.isAfter(position.lsn())) {
            return null;
        }
        position = PostgresPosition.at(serverLsn);
        return StreamRecord.progress(position);
    }

    PostgresPosition position() {
        return position;
    }

    /** Decodes one pgoutput message; its records become available through {@link #next()}. */
    void handle(ByteBuffer m) throws SQLException {
        byte type = m.get();
        switch (type) {
            case 'B':
                begin(Lsn.valueOf(m.getLong()), m.getLong(), m.getInt() & 0xFFFFFFFFL);
                break;
            case 'C':
                m.get(); // flags, unused
                m.getLong(); // commit LSN, known from BEGIN
                commit(Lsn.valueOf(m.getLong()));
                break;
            case 'O':
            case 'Y':
                break; // origin and type messages: nothing to capture
            case 'R':
                relation(m);
                break;
            case 'I':
                insert(m);
                break;
            case 'U':
                update(m);
                break;
            case 'D':
                delete(m);
                break;
            case 'T':
                truncate(m);
                break;
            case 'M':
                message(m);
                break;
            case 'S':
            case 'E':
            case 'c':
            case 'A':
            case 'b':
            case 'P':
            case 'K':
            case 'r':
            case 'p':
                throw PgOutputMessages.unsupported(type);
            default:
                throw new CdcException(CdcException.Kind.DECODE, "pgoutput sent an unknown message type '" + (char) type
                        + "' on slot '" + slot + "'");
        }
    }

    private void begin(Lsn commitLsn, long commitMicros, long xid) {
        inTransaction = true;
        txCommitLsn = commitLsn;
        txXid = xid;
        txVisible = false;
        txCommitTime = Instant.ofEpochSecond(PG_EPOCH_SECONDS + Math.floorDiv(commitMicros, 1_000_000L),
                Math.floorMod(commitMicros, 1_000_000L) * 1000);
        txUnits = 0;
        txSkip = 0;
        if (resumePending) {
            resumePending = false;
            if (!commitLsn.equals(from.lsn())) {
                throw new CdcException(CdcException.Kind.POSITION_LOST, "Resuming inside the transaction that commits at "
                        + from.lsn() + " (after its first " + from.eventsTaken() + " changes), but slot '"
                        + slot + "' first sent a transaction committing at " + commitLsn + ". The rest of "
                        + "the transaction is not in the slot any more; restart without state to read the tables anew.");
            }
            txSkip = from.eventsTaken();
        }
    }

    private void commit(Lsn endLsn) {
        inTransaction = false;
        position = PostgresPosition.at(endLsn);
        pending.add(StreamRecord.transactionEnd(position));
    }

    /** Counts one unit of the transaction; true when it was delivered before a restart. */
    private boolean nextUnitSkipped() {
        txUnits++;
        position = PostgresPosition.inTransaction(txCommitLsn, txUnits, txXid);
        return txUnits <= txSkip;
    }

    private void insert(ByteBuffer m) {
        PgRelation r = relation(m.getInt());
        m.get(); // 'N'
        Row after = PgOutputMessages.tuple(m, r, false);
        if (!nextUnitSkipped() && r.captured) {
            emit(event(Op.INSERT, r).after(after).shape(r.shape));
        }
    }

    private void update(ByteBuffer m) throws SQLException {
        PgRelation r = relation(m.getInt());
        byte kind = m.get();
        Row before = null;
        String[] oldKey = reselect == null ? null : new String[r.identity.length];
        String[] newKey = reselect == null ? null : new String[r.identity.length];
        if (kind == 'K' || kind == 'O') {
            before = PgOutputMessages.tuple(m, r, kind == 'K', oldKey);
            m.get(); // 'N'
        }
        Row after = PgOutputMessages.tuple(m, r, false, newKey);
        if (before != null) {
            // an unchanged TOAST value is the old row's: REPLICA IDENTITY FULL logs the whole old row, and
            // PostgreSQL logs the old key when a key column is stored out of line (its other columns stay absent)
            after = after.fillAbsentFrom(before);
        }
        if (!nextUnitSkipped() && r.captured) {
            if (reselect != null && !after.absentFields().isEmpty()) {
                for (int i = 0; i < newKey.length; i++) {
                    newKey[i] = newKey[i] != null ? newKey[i] : oldKey[i];
                }
                awaitTransactionVisible();
                after = reselect.fill(r, after, newKey, position);
            }
            emit(event(Op.UPDATE, r).before(before).after(after).shape(r.shape));
        }
    }

    private void delete(ByteBuffer m) {
        PgRelation r = relation(m.getInt());
        byte kind = m.get();
        Row before = PgOutputMessages.tuple(m, r, kind == 'K');
        if (!nextUnitSkipped() && r.captured) {
            emit(event(Op.DELETE, r).before(before).shape(r.shape));
        }
    }

    private void truncate(ByteBuffer m) {
        int count = m.getInt();
        m.get(); // options: CASCADE, RESTART IDENTITY
        for (int i = 0; i < count; i++) {
            PgRelation r = relation(m.getInt());
            if (!nextUnitSkipped() && r.captured) {
                emit(event(Op.TRUNCATE, r));
            }
        }
    }

    private void message(ByteBuffer m) {
        boolean transactional = (m.get() & 1) != 0;
        Lsn lsn = Lsn.valueOf(m.getLong());
        String prefix = PgOutputMessages.string(m);
        byte[] content = new byte[m.getInt()];
        m.get(content);
        if (transactional) {
            if (nextUnitSkipped()) {
                return;
            }
        } else {
            // pgoutput gives the END of the message's record, which may be where the next transaction's commit
            // record starts. Resuming at that LSN leaves out this message (the server skips what starts
            // before it) and keeps that transaction (which commits at it): one past it would skip the transaction
            position = PostgresPosition.at(lsn);
        }
        TableId table = TableId.of(database, null, prefix + "__messages");
        if (!filter.matches(table)) {
            if (!transactional) {
                pending.add(StreamRecord.progress(position));
            }
            return;
        }
        Row row = LogicalMessages.row(prefix, content, transactional, lsn);
        SourceInfo source = SourceInfo.stream(CONNECTOR, position, transactional ? txCommitTime : null);
        ChangeEvent.Builder event = ChangeEvent.builder(Op.MESSAGE, table, source).after(row);
        if (transactional) {
            event.transaction(TransactionInfo.of(Long.toString(txXid), txUnits, TransactionInfo.UNKNOWN));
        }
        pending.add(StreamRecord.of(event.build(), position));
    }

    private ChangeEvent.Builder event(Op op, PgRelation r) {
        return ChangeEvent.builder(op, r.table, SourceInfo.stream(CONNECTOR, position, txCommitTime))
                .transaction(TransactionInfo.of(Long.toString(txXid), txUnits, TransactionInfo.UNKNOWN));
    }

    private void emit(ChangeEvent.Builder event) {
        pending.add(StreamRecord.of(event.build(), position));
    }

    private PgRelation relation(int oid) {
        PgRelation r = relations.get(oid);
        if (r == null) {
            throw new CdcException(CdcException.Kind.DECODE, "pgoutput sent a change of relation " + oid
                    + " before describing it in a RELATION message");
        }
        return r;
    }

    private void relation(ByteBuffer m) throws SQLException {
        int oid = m.getInt();
        String schema = PgOutputMessages.string(m);
        String name = PgOutputMessages.string(m);
        byte identitySetting = m.get(); // the key flags below say which columns form it
        int count = m.getShort();
        TableId table = TableId.of(database, schema, name);
        awaitTransactionVisible();
        // a column the catalogue no longer knows by this name (renamed or dropped since) is not promised NOT NULL
        Map<String, Attribute> attributes = catalog.attributes(oid);
        long fileNode = catalog.fileNode(oid);
        Long formerFileNode = fileNodes.put(oid, fileNode);
        // whether the table may have been rewritten since its last RELATION: unknown without one, or without a file
        boolean rewritten = formerFileNode == null || fileNode == 0 || formerFileNode != fileNode;
        List<String> primaryKey = catalog.primaryKey(oid);
        List<RowShape.Column> columns = new ArrayList<>(count);
        List<String> names = new ArrayList<>(count);
        List<ValueType> types = new ArrayList<>(count);
        TextDecoder[] decoders = new TextDecoder[count];
        boolean[] identity = new boolean[count];
        int[] typeOids = new int[count];
        int[] typmods = new int[count];
        for (int i = 0; i < count; i++) {
            identity[i] = (m.get() & 1) != 0;
            String column = PgOutputMessages.string(m);
            typeOids[i] = m.getInt();
            typmods[i] = m.getInt();
            PgType type = catalog.type(typeOids[i], typmods[i]);
            Attribute attribute = attributes.get(column);
            columns.add(RowShape.Column.of(column, type.declared(), attribute == null || !attribute.notNull()));
            names.add(column);
            types.add(type.valueType());
            decoders[i] = type.decoder();
        }
        List<String> key = keyAsLogged(primaryKey, names, identity, identitySetting);
        RowShape shape = RowShape.of(schema, name, columns, key);
        RowType rowType = RowType.of(names, types);
        PgRelation relation = new PgRelation(oid, table, shape, identity, typeOids, typmods,
                attributeNumbers(attributes, names, typeOids, typmods), new RowDecoder(table, rowType, columns, decoders),
                filter.matches(table));
        PgRelation previous = relations.put(oid, relation);
        Integer formerId = relationIds.put(table, oid);
        PgRelation former = previous == null && formerId != null && formerId != oid ? relations.remove(formerId) : null;
        if (previous != null && previous.captured && !previous.table.equals(table)) {
            throw renamed(previous.table, relation, "");
        }
        TableId openedAs = inTransaction ? opened.remove(oid) : null;
        if (openedAs != null && !openedAs.equals(table)) {
            // the relation's first description in the stream, under another name than when the stream opened: its
            // changes since (under that name) are left out or emitted under a table never snapshotted
            throw renamed(openedAs, relation, " (its name when the stream opened)");
        }
        if (relation.captured && identitySetting != 'f') {
            relation.requireKeyInIdentity((char) identitySetting, position);
        }
        if (!relation.captured || (inTransaction && txUnits < txSkip)) {
            return; // or the change it shows was delivered before a restart, inside this transaction
        }
        Integer replacedId = former != null ? formerId : null;
        if (previous == null && former == null && inTransaction) {
            replacedId = replacedSinceOpened(oid, table);
        }
        // compared only inside a transaction: a relation given before one (sql-peek's, of the transactions before
        // the position) is what the table was before the position, not a change after it
        RowShape resumedShape = resumed.remove(table);
        RowShape before = previous == null && replacedId == null && inTransaction ? resumedShape : null;
        if (previous != null && !previous.sameColumns(relation)) {
            emitSchemaChange(table, DdlType.ALTER_TABLE, shape,
                    filled(PgShapeChanges.classify(previous, relation), attributes, rewritten));
        } else if (before != null && !before.equals(shape)) {
            // the first relation since the stream (re)opened, and the table changed since its events last showed
            // it: no attribute numbers are known of that shape, so columns are matched by name
            emitSchemaChange(table, DdlType.ALTER_TABLE, shape,
                    filled(ShapeDiff.classify(before, shape), attributes, rewritten));
        } else if (replacedId != null && (former == null || former.table.equals(table))) {
            emitSchemaChange(table, DdlType.CREATE_TABLE, shape, List.of(ShapeChange.tableReplaced(shape,
                    "relation " + Integer.toUnsignedString(replacedId) + " was replaced by relation "
                            + Integer.toUnsignedString(oid) + " under the same name: dropped and created again")));
        }
    }

    private CdcException renamed(TableId was, PgRelation relation, String when) {
        return new CdcException(CdcException.Kind.STATE, "Table " + was.qualifiedName() + when + " was renamed to "
                + relation.table.qualifiedName() + " (relation " + Integer.toUnsignedString(relation.oid)
                + ") in the transaction committing at " + position + ": its later changes come under a name "
                + (relation.captured ? "whose rows this source never snapshotted" : "the include list does not match")
                + ", so the changelog of " + was.qualifiedName() + " cannot continue (a restart from this slot reads the "
                + "same changes again). Rename it back, or include the new name, and restart the source without state "
                + "so that it is read again.");
    }

    /**
     * The relation id {@code table} had as the stream opened, when no transaction has described that relation and
     * the catalogue no longer has it: dropped (pgoutput sends nothing of it), and {@code oid} created under its
     * name. Null while it exists: then {@code oid} is older (a stream replaying WAL from before the catalogue's
     * state), and the opened relation, when it comes, replaces it by the relations seen.
     */
    @Nullable
    private Integer replacedSinceOpened(int oid, TableId table) throws SQLException {
        Integer openedId = openedIds.get(table);
        if (openedId == null || openedId == oid || !opened.containsKey(openedId) || catalog.exists(openedId)) {
            return null;
        }
        opened.remove(openedId);
        openedIds.remove(table);
        return openedId;
    }

    /**
     * Logical decoding may send a transaction as soon as its commit record is in the WAL, a moment before
     * other sessions see it (the committing backend leaves the proc array after): a catalogue read in that
     * moment would describe a table the transaction created as gone, or one it altered as it was before.
     */
    private void awaitTransactionVisible() throws SQLException {
        if (inTransaction && !txVisible) {
            catalog.awaitVisible(txXid);
            txVisible = true;
        }
    }

    /**
     * The primary key of a relation as of its place in the WAL. The catalogue's is now's; under {@code REPLICA
     * IDENTITY DEFAULT} ({@code 'd'}) the columns pgoutput flags are the key as the change was logged, which differs
     * when the key changed since (a stream behind an {@code ALTER TABLE ... ADD PRIMARY KEY}): then those columns, in
     * their order, are the key, and the relation after the statement shows the change.
     */
    static List<String> keyAsLogged(List<String> catalogueKey, List<String> names, boolean[] identity, byte setting) {
        List<String> key = new ArrayList<>(catalogueKey);
        key.retainAll(names);
        if (setting != 'd') {
            return key;
        }
        List<String> flagged = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (identity[i]) {
                flagged.add(names.get(i));
            }
        }
        return flagged.isEmpty() || new HashSet<>(flagged).equals(new HashSet<>(key)) ? key : flagged;
    }

    /**
     * {@code changes} with each column added that the catalogue shows filled for the rows before it ({@link
     * Attribute#filled}) marked so: a sink that gives the old rows null for it would differ from the table.
     */
    private static List<ShapeChange> filled(List<ShapeChange> changes, Map<String, Attribute> attributes,
            boolean rewritten) {
        return ShapeChange.markFilled(changes, name -> {
            Attribute a = attributes.get(name);
            return a != null && (a.filled() || a.defaulted() && rewritten);
        }, FILLED);
    }

    private void emitSchemaChange(TableId table, DdlType ddlType, RowShape shape, List<ShapeChange> changes) {
        SourceInfo source = SourceInfo.stream(CONNECTOR, position, txCommitTime);
        pending.add(StreamRecord.of(ChangeEvent.builder(Op.SCHEMA_CHANGE, table, source)
                .after(SchemaChangeRows.of(table, ddlType, null)).shape(shape).shapeChanges(changes).build(), position));
    }

    /**
     * The attribute numbers of the columns a RELATION message names, when the catalogue still
     * describes them exactly as the message does (same names and types, in attribute order); null
     * when it does not (the table changed again since), so that nothing is told from them.
     */
    @Nullable
    private static int[] attributeNumbers(Map<String, Attribute> now, List<String> names, int[] typeOids,
            int[] typmods) {
        int[] numbers = new int[names.size()];
        int last = 0;
        for (int i = 0; i < numbers.length; i++) {
            Attribute a = now.get(names.get(i));
            if (a == null || a.typeOid() != typeOids[i] || a.typmod() != typmods[i] || a.number() <= last) {
                return null;
            }
            numbers[i] = a.number();
            last = a.number();
        }
        return numbers;
    }

}
