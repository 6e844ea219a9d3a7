package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChunkKeyChanges;
import io.rustcdc.flink.source.spi.DenseKeyChunks;
import io.rustcdc.flink.source.spi.JdbcTransactions;
import io.rustcdc.flink.source.spi.RowFilters;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.annotation.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * One ordinary connection to PostgreSQL for the catalogue and snapshot chunks. Each chunk is read
 * with {@code COPY} in its own REPEATABLE READ transaction, whose MVCC snapshot is the chunk's
 * mark: the stream can then tell exactly which transactions the chunk's rows already show. Not
 * thread-safe.
 */
final class PostgresSession implements CatalogSession<PostgresPosition, PostgresChunkMark> {
    /**
     * SQLSTATEs of a key's literal that no longer fits its column: undefined_function (no operator for the two
     * types), datatype_mismatch, invalid_text_representation.
     */
    private static final Set<String> KEY_TYPE_MISMATCH = Set.of("42883", "42804", "22P02");
    private static final SourceInfo SNAPSHOT = SourceInfo.snapshot(PostgresConnector.NAME, null);

    private final PostgresSourceConfig config;
    private final Connection connection;
    private final PgCatalog catalog;
    private final CopyRowParser copyParser = new CopyRowParser();
    private final PgKeyPlacement placement;
    private final DenseKeyChunks denseKeys;
    /** The bytes of the chunks' rows read so far ({@link #bytesRead}). */
    private long bytesRead;
    /** Decoders of chunk keys, one per table and key: chunk boundaries are found many times per table. */
    private final java.util.Map<String, RowDecoder> keyDecoders = new java.util.HashMap<>();
    /**
     * Whether each table is partitioned, as last described (a plain table is read with {@code ONLY}: {@link
     * PgTable#scanned}); a chunk's read describes its table anew in its snapshot.
     */
    private final java.util.Map<TableId, Boolean> partitioned = new java.util.HashMap<>();

    PostgresSession(PostgresSourceConfig config) {
        this.config = config;
        this.connection = PgConnections.open(config);
        try {
            this.catalog = new PgCatalog(connection, config.database());
            this.placement = new PgKeyPlacement(connection, catalog);
            this.denseKeys = new DenseKeyChunks(new PgKeyRanges(connection, this::partitioned));
        } catch (SQLException e) {
            close();
            throw failure(e);
        }
    }

    @Override
    public void checkSnapshotPrerequisites(List<TableId> tables) {
        try {
            PgPrerequisites.requireSelect(connection, tables);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public PostgresPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
        config.requireStreaming();
        try {
            PgPrerequisites.requireLogicalReplication(connection);
            if (config.walTransport() == WalTransport.STREAMING && !PgSlots.isActive(connection, config.slotName())) {
                // before a first start's snapshot, not after it: a login that cannot replicate (a pooler between)
                PgConnections.requireReplicationLogin(config);
            }
            PgPrerequisites.preparePublication(connection, config, tables);
            PgPrerequisites.requireReplicaIdentity(connection, tables, fullBeforeImages);
            PgPrerequisites.requireLogged(connection, tables);
            PgToastCheck.requireInUpdates(connection, config, tables);
            if (config.toastReselect()) {
                PgPrerequisites.requireSelect(connection, tables, "'" + PostgresOptions.TOAST_RESELECT.key()
                        + "' reads unchanged TOASTed values from");
            }
            PostgresPosition start = PostgresPosition.at(PgSlots.prepare(connection, config, catalog.serverVersion()));
            // after the slot's own checks: a slot another session is still creating is retried, not waited for
            PgRunningTransactions.awaitEnded(connection, config, tables);
            return start;
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public List<TableId> discoverTables(TableFilter filter) {
        try {
            return catalog.discover(publicationIfExists(), filter);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public TableDescription describe(TableId table) {
        try {
            return described(catalog.describe(table, publicationIfExists())).description;
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after, int chunkSize) {
        return nextChunkEnd(table, keyColumns, after, chunkSize, null);
    }

    @Override
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after, int chunkSize,
            @Nullable String rowFilter) {
        try {
            // planned in the order of the table as first described: one whose key orders otherwise now fails
            requireSameOrder(table, keyColumns);
            if (denseKeys.applies(table, keyColumns, rowFilter)) {
                return denseKeys.nextEnd(table, keyColumns.get(0), after, chunkSize);
            }
            String sql = nextChunkEndSql(table, partitioned(table.table()), keyColumns, after, chunkSize, rowFilter);
            RowDecoder decoder = keyDecoder(table, keyColumns);
            if (!PgConnections.mayBePooled(config)) {
                return chunkEnd(sql, decoder, keyColumns.size());
            }
            // the key's text as the settings say, which a pooled session may not have
            return JdbcTransactions.inTransaction(connection, Connection.TRANSACTION_READ_COMMITTED, true, () -> {
                PgConnections.setUpTransaction(connection, "READ COMMITTED");
                return chunkEnd(sql, decoder, keyColumns.size());
            });
        } catch (SQLException e) {
            requireSameOrderAfter(e, table, keyColumns);
            throw RowFilters.chunkFailure(connection, table.table(), rowFilter, e, this::failure);
        }
    }

    /**
     * After a chunk end's query failed on its key's type: the check before it reads the catalogue without the table's
     * lock, so a type change waiting for the lock passes it, and the query, queued behind the change, then compares
     * the new type with the old key's literal. The key's order is checked again, to fail naming the table and column.
     */
    private void requireSameOrderAfter(SQLException e, TableDescription table, List<String> keyColumns) {
        if (!KEY_TYPE_MISMATCH.contains(e.getSQLState())) {
            return;
        }
        try {
            requireSameOrder(table, keyColumns);
        } catch (CdcException changed) {
            changed.addSuppressed(e);
            throw changed;
        } catch (SQLException again) {
            e.addSuppressed(again);
        }
    }

    private void requireSameOrder(TableDescription table, List<String> keyColumns) throws SQLException {
        PgChunkKey.requireSameOrder(table, catalog.keyColumns(table.table(), keyColumns), keyColumns);
    }

    @Nullable
    private Object[] chunkEnd(String sql, RowDecoder decoder, int keyColumns) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                return null;
            }
            Object[] key = new Object[keyColumns];
            for (int i = 0; i < key.length; i++) {
                key[i] = decoder.decode(i, rs.getString(i + 1));
            }
            return key;
        }
    }

    /** The query of {@link #nextChunkEnd}: the key {@code chunkSize} rows (that {@code rowFilter} selects) on. */
    static String nextChunkEndSql(TableDescription table, boolean partitioned, List<String> keyColumns,
            @Nullable Object[] after, int chunkSize, @Nullable String rowFilter) {
        String keys = keyColumns.stream().map(PgLiterals::quoteIdentifier).collect(Collectors.joining(", "));
        return "SELECT " + keys + " FROM " + PgTable.scanned(table.table(), partitioned)
                + RowFilters.where(RowFilters.and(after == null ? "" : after(table, keyColumns, after), rowFilter))
                + " ORDER BY " + keys + " LIMIT 1 OFFSET " + (chunkSize - 1);
    }

    @Override
    @Nullable
    public String keyMissingFromOldRows(TableId table, List<String> keyColumns) {
        try {
            return PgOldRowKeys.missing(connection, table, keyColumns);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    @Nullable
    public String rowFilterProblem(TableDescription table, String rowFilter) {
        try {
            // read-only: a condition that calls a function cannot write
            JdbcTransactions.inTransaction(connection, Connection.TRANSACTION_READ_COMMITTED, true, () -> {
                try (Statement s = connection.createStatement()) {
                    String from = PgTable.scanned(table.table(), partitioned(table.table()));
                    for (String sql : RowFilters.probes("SELECT 1 FROM " + from + " WHERE ", rowFilter, " LIMIT 0")) {
                        s.executeQuery(sql).close();
                    }
                }
                return null;
            });
            return null;
        } catch (SQLException e) {
            CdcException f = failure(e);
            if (f.kind() == CdcException.Kind.CONNECTION) {
                throw f;
            }
            return e.getMessage();
        }
    }

    private RowDecoder keyDecoder(TableDescription table, List<String> keyColumns) throws SQLException {
        String key = table.table() + " " + keyColumns;
        RowDecoder decoder = keyDecoders.get(key);
        if (decoder == null) {
            decoder = described(catalog.describe(table.table(), publicationIfExists())).decoder(keyColumns);
            keyDecoders.put(key, decoder);
        }
        return decoder;
    }

    @Override
    public PostgresChunkMark readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
        return readChunk(table, keyColumns, after, upTo, null, out);
    }

    @Override
    public PostgresChunkMark readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        try {
            return JdbcTransactions.inTransaction(connection, Connection.TRANSACTION_REPEATABLE_READ, true, () -> {
                // behind a pooler in transaction mode, the isolation PgJDBC sets for the session and the session's
                // settings may be another server session's: the chunk's snapshot and values need them here
                PgConnections.setUpTransaction(connection, "REPEATABLE READ");
                PgChunkLock.take(connection, table.table()); // before the snapshot: no DDL between it and the read
                PostgresChunkMark mark = snapshotMark();
                // described inside the chunk's snapshot: the rows carry the shape they were read with; the relation
                // id is the locked table's, which the framework compares across the table's chunks
                PgTable now = described(catalog.describe(table.table(), publicationIfExists()));
                // in the order of the description given, which the framework compares with the chunk's planned key
                if (after != null || upTo != null) { // a chunk of the whole table keeps no order
                    PgChunkKey.requireSameOrder(table, now.description, keyColumns);
                }
                requireOrderedBounds(table, keyColumns, after, upTo);
                copyChunk(now, keyColumns, after, upTo, rowFilter, out);
                return mark.ofRelation(now.relationId, PgChunkKey.keyOrder(now.description, keyColumns));
            });
        } catch (SQLException e) {
            throw RowFilters.chunkFailure(connection, table.table(), rowFilter, e, this::failure);
        }
    }

    /**
     * A chunk's bounds, planned in its table's key order then, must still be in order in the key's collations now:
     * if no chunk of the table was read before a collation changed, every chunk reads in the new order, and the
     * chunks partition the keys exactly when each one's bounds are in order in it. Checked for text keys only (a key
     * of another type has no collation; one retyped fails its chunk's query).
     */
    private void requireOrderedBounds(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo) throws SQLException {
        if (after == null || upTo == null || keyColumns.stream().allMatch(c -> collation(table, c) == null)) {
            return;
        }
        Map<String, String> collations = new HashMap<>();
        catalog.keyColumns(table.table(), keyColumns).forEach((column, now) -> {
            if (now.sqlCollation() != null) {
                collations.put(column, now.sqlCollation());
            }
        });
        String sql = "SELECT " + collated(table, keyColumns, after, collations) + " < "
                + collated(table, keyColumns, upTo, collations);
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (rs.next() && !rs.getBoolean(1)) {
                throw ChunkKeyChanges.unorderedBounds(table.table(), keyColumns, collations.toString());
            }
        }
    }

    @Nullable
    private static String collation(TableDescription table, String column) {
        int field = table.rowType().indexOf(column);
        return field < 0 ? null : table.collation(field);
    }

    /** {@code key}'s literals, each of a column with a collation then and now in that column's collation now. */
    private static String collated(TableDescription table, List<String> keyColumns, Object[] key,
            Map<String, String> collations) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < keyColumns.size(); i++) {
            String column = keyColumns.get(i);
            sb.append(i == 0 ? "" : ", ").append(literal(table, column, key[i]));
            if (collation(table, column) != null && collations.containsKey(column)) {
                sb.append(" COLLATE ").append(collations.get(column));
            }
        }
        return sb.append(')').toString();
    }

    /** Notes whether {@code table} is partitioned, for the snapshot queries made without describing it. */
    private PgTable described(PgTable table) {
        partitioned.put(table.description.table(), table.partitioned);
        return table;
    }

    /** Whether {@code table} is partitioned, as last described, else as the catalogue says now. */
    private boolean partitioned(TableId table) throws SQLException {
        Boolean known = partitioned.get(table);
        return known != null ? known : catalog.partitioned(table);
    }

    /**
     * The bytes of the chunks' rows as {@code COPY ... TO STDOUT} sent them: each CopyData message (a row's text
     * line, its end included; or a row in the binary format, and its header and end once per chunk).
     */
    @Override
    public long bytesRead() {
        return bytesRead;
    }

    @Override
    public int[] placeKeys(TableId table, List<String> keyColumns, List<ValueType> keyTypes, List<String> keyCollations,
            List<Object[]> bounds, List<Object[]> keys) {
        try {
            return placement.place(table, keyColumns, keyTypes, keyCollations, bounds, keys);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public PostgresPosition currentPosition() {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_current_wal_insert_lsn()::text")) {
            rs.next();
            return PostgresPosition.at(Lsn.valueOf(rs.getString(1)));
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    /** The first statement of the transaction takes its snapshot; the WAL position is read after it. */
    private PostgresChunkMark snapshotMark() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_current_snapshot()::text, "
                        + "pg_catalog.pg_current_wal_insert_lsn()::text")) {
            rs.next();
            return PostgresChunkMark.parse(rs.getString(1), Lsn.valueOf(rs.getString(2)));
        }
    }

    /**
     * Reads the chunk's rows with one {@code COPY}: in the binary format when every column's type has a binary
     * decoder (the database sends integers, numerics, dates and timestamps without writing them as text, and
     * nothing is unescaped here), else in the text format. Both give the same values.
     */
    private void copyChunk(PgTable pgTable, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) throws SQLException {
        TableDescription table = pgTable.description;
        RowShape shape = table.shape();
        RowDecoder decoder = pgTable.decoder();
        CopyBinaryParser binary = decoder.binary() ? new CopyBinaryParser(decoder) : null;
        String sql = chunkSql(table, pgTable.partitioned, keyColumns, after, upTo, rowFilter)
                + (binary != null ? " (FORMAT binary)" : "");
        Consumer<Row> emit = row -> out.accept(ChangeEvent.builder(Op.READ, table.table(), SNAPSHOT).after(row)
                .shape(shape).build());
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
        try {
            byte[] message;
            while ((message = copy.readFromCopy()) != null) {
                bytesRead += message.length;
                if (binary != null) {
                    binary.rows(message, emit);
                } else {
                    Row.Builder row = Row.builder(table.rowType());
                    copyParser.decode(message, decoder, row);
                    emit.accept(row.build());
                }
            }
            if (binary != null) {
                binary.finish();
            }
        } catch (CopyFormatException e) {
            throw new CdcException(CdcException.Kind.DECODE, "Cannot read a snapshot chunk of table "
                    + table.table().qualifiedName() + ": " + e.getMessage());
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
    }

    /** The {@code COPY} of a chunk's rows: those in ({@code after}, {@code upTo}] that {@code rowFilter} selects. */
    static String chunkSql(TableDescription table, boolean partitioned, List<String> keyColumns,
            @Nullable Object[] after, @Nullable Object[] upTo, @Nullable String rowFilter) {
        String columns = table.shape().columns().stream().map(c -> PgLiterals.quoteIdentifier(c.name()))
                .collect(Collectors.joining(", "));
        StringBuilder where = new StringBuilder();
        if (after != null) {
            where.append(after(table, keyColumns, after));
        }
        if (upTo != null) {
            where.append(after != null ? " AND " : "").append(tuple(keyColumns)).append(" <= ")
                    .append(literals(table, keyColumns, upTo));
        }
        if (keyColumns.size() > 1) {
            // implied by the row comparisons; without it the planner estimates a composite key's chunk
            // by its first column alone and scans the whole table for each chunk
            String first = PgLiterals.quoteIdentifier(keyColumns.get(0));
            if (after != null) {
                where.append(" AND ").append(first).append(" >= ").append(literal(table, keyColumns.get(0), after[0]));
            }
            if (upTo != null) {
                where.append(" AND ").append(first).append(" <= ").append(literal(table, keyColumns.get(0), upTo[0]));
            }
        }
        return "COPY (SELECT " + columns + " FROM " + PgTable.scanned(table.table(), partitioned)
                + RowFilters.where(RowFilters.and(where.toString(), rowFilter)) + ") TO STDOUT";
    }

    /** {@code (key...) > (literals...)}: the keys after {@code after}, as literals of the keys' own types. */
    static String after(TableDescription table, List<String> keyColumns, Object[] after) {
        return tuple(keyColumns) + " > " + literals(table, keyColumns, after);
    }

    private static String tuple(List<String> keyColumns) {
        return "(" + keyColumns.stream().map(PgLiterals::quoteIdentifier).collect(Collectors.joining(", ")) + ")";
    }

    private static String literal(TableDescription table, String column, Object value) {
        int field = table.rowType().indexOf(column);
        return PgLiterals.of(table.rowType().type(field), table.shape().columns().get(field).dataType(), value);
    }

    private static String literals(TableDescription table, List<String> keyColumns, Object[] key) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < keyColumns.size(); i++) {
            int field = table.rowType().indexOf(keyColumns.get(i));
            String declared = table.shape().columns().get(field).dataType();
            sb.append(i == 0 ? "" : ", ").append(PgLiterals.of(table.rowType().type(field), declared, key[i]));
        }
        return sb.append(')').toString();
    }

    @Nullable
    private String publicationIfExists() throws SQLException {
        String pub = config.publicationName();
        if (pub == null) {
            return null;
        }
        try (var s = connection.prepareStatement("SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = ?")) {
            s.setString(1, pub);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? pub : null;
            }
        }
    }

    private CdcException failure(SQLException e) {
        return PgConnections.failure(config, e);
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // nothing to do: the connection is gone either way
        }
    }
}
