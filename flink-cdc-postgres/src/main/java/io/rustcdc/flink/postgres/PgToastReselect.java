package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.spi.JdbcTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code toast.reselect}: reads the unchanged TOASTed values an update did not send from the table,
 * by the row's replica identity, in one {@code COPY (SELECT ...) TO STDOUT} per update (the snapshot's
 * text, decoded by the stream's own decoders), on the stream's ordinary connection.
 *
 * <p>The value read is the row's committed value when the query runs, after the update committed: the
 * update's own value, unless a later transaction changed the row before the query, and then that later
 * change follows in the stream (it committed after the update, since it changed the row the update
 * wrote). A row gone by then (deleted, or its key changed) leaves the values absent; its delete or key
 * change follows in the stream likewise. Row-level security is off for the query ({@code row_security
 * = off}): a policy that would hide the row fails the query instead of passing it for a deleted one.
 * The same query checks that the table and the columns are still those the update's RELATION message
 * described (relation OID; each column's name, type, modifier and, where known, attribute number); if
 * not, the values cannot be read as the update left them, and the stream fails ({@code DECODE}).
 * Not thread-safe: it is used by the polling thread only.
 */
final class PgToastReselect implements PgOutputDecoder.Reselect {
    private static final Logger LOG = LoggerFactory.getLogger(PgToastReselect.class);

    private final Connection connection;
    /** Whether the connection may be pooled ({@link PgConnections#mayBePooled}). */
    private final boolean pooled;
    private final CopyRowParser parser = new CopyRowParser();
    private Counter reselected = new SimpleCounter();
    private Counter gone = new SimpleCounter();

    PgToastReselect(Connection connection, boolean pooled) throws SQLException {
        this.connection = connection;
        this.pooled = pooled;
        try (Statement s = connection.createStatement()) {
            s.execute("SET row_security = off");
        }
    }

    /** {@code toastReselects}: updates whose values were read; {@code toastReselectRowsGone}: of those, rows gone. */
    void registerMetrics(MetricGroup group) {
        reselected = group.counter("toastReselects");
        gone = group.counter("toastReselectRowsGone");
    }

    @Override
    public Row fill(PgRelation relation, Row after, String[] keyTexts, PostgresPosition position) throws SQLException {
        List<Integer> fields = new ArrayList<>();
        for (int i = 0; i < after.size(); i++) {
            if (!after.isPresent(i)) {
                fields.add(i);
            }
        }
        String sql = query(relation, fields, keyTexts, position);
        List<String[]> rows;
        try {
            rows = !pooled ? copy(sql, 3 + fields.size())
                    : JdbcTransactions.inTransaction(connection, Connection.TRANSACTION_READ_COMMITTED, true, () -> {
                        // the values' text and row_security as the settings say, which a pooled session may not have
                        PgConnections.setUpTransaction(connection, "READ COMMITTED");
                        return copy(sql, 3 + fields.size());
                    });
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState()) || "42703".equals(e.getSQLState())) {
                throw changed(relation, fields, position, "the table or a column is gone under its name (SQLSTATE "
                        + e.getSQLState() + ")");
            }
            throw e;
        }
        reselected.inc();
        String[] found = rows.get(0);
        if (rows.size() > 1) {
            throw changed(relation, fields, position, "more than one row has the update's key");
        }
        if (!Integer.toString(fields.size()).equals(found[0])) {
            throw changed(relation, fields, position, "a column was dropped, renamed or retyped");
        }
        if (!Integer.toUnsignedString(relation.oid).equals(found[1])) {
            throw changed(relation, fields, position, "its name now belongs to another table");
        }
        if (found[2] == null) {
            gone.inc();
            LOG.debug("The row of an update of {} at {} was gone when its unchanged TOASTed values were read; "
                    + "they stay absent", relation.table, position);
            return after;
        }
        Row.Builder values = Row.builder(after.type());
        for (int j = 0; j < fields.size(); j++) {
            int field = fields.get(j);
            values.set(field, relation.decoder.decode(field, found[3 + j]));
        }
        return after.fillAbsentFrom(values.build());
    }

    private List<String[]> copy(String sql, int width) throws SQLException {
        List<String[]> rows = new ArrayList<>();
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
        try {
            byte[] line;
            while ((line = copy.readFromCopy()) != null) {
                String[] texts = new String[width];
                parser.parse(line, texts);
                rows.add(texts);
            }
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
        return rows;
    }

    /**
     * One row: how many of the columns still have the name, type, modifier (and attribute number)
     * the RELATION message gave; the OID the table's name resolves to now; then, when the row is
     * there, {@code true} and the columns' values, else nulls (the row twice: the key is not unique).
     */
    private static String query(PgRelation relation, List<Integer> fields, String[] keyTexts, PostgresPosition position) {
        String oid = Integer.toUnsignedString(relation.oid) + "::pg_catalog.oid";
        String table = PgPrerequisites.qualified(relation.table);
        List<String> attributes = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        for (int field : fields) {
            String name = relation.shape.columns().get(field).name();
            columns.add("t0." + PgLiterals.quoteIdentifier(name));
            attributes.add("(" + literal(name) + "::pg_catalog.name, " + Integer.toUnsignedString(relation.typeOids[field])
                    + "::pg_catalog.oid, " + relation.typmods[field] + "::pg_catalog.int4"
                    + (relation.attributeNumbers == null ? "" : ", " + relation.attributeNumbers[field] + "::pg_catalog.int2")
                    + ")");
        }
        List<String> key = new ArrayList<>();
        for (int i = 0; i < keyTexts.length; i++) {
            if (relation.identity[i]) {
                if (keyTexts[i] == null) {
                    throw new CdcException(CdcException.Kind.DECODE, "An update of " + relation.table.qualifiedName()
                            + " at " + position + " lacks unchanged TOASTed values, and its key column "
                            + relation.shape.columns().get(i).name() + " was not sent either, so they cannot be read "
                            + "from the table: ALTER TABLE " + table + " REPLICA IDENTITY FULL;");
                }
                // an untyped literal takes the column's type, read by its input function from the text pgoutput sent
                key.add("t0." + PgLiterals.quoteIdentifier(relation.shape.columns().get(i).name()) + " = "
                        + literal(keyTexts[i]));
            }
        }
        if (key.isEmpty()) {
            throw new CdcException(CdcException.Kind.DECODE, "An update of " + relation.table.qualifiedName() + " at "
                    + position + " lacks unchanged TOASTed values, and the table has no replica identity to read them "
                    + "by: ALTER TABLE " + table + " REPLICA IDENTITY FULL;");
        }
        return "COPY (SELECT (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute a WHERE a.attrelid = " + oid
                + " AND NOT a.attisdropped AND (a.attname, a.atttypid, a.atttypmod"
                + (relation.attributeNumbers == null ? "" : ", a.attnum") + ") IN (" + String.join(", ", attributes)
                + ")), pg_catalog.to_regclass(" + literal(table) + ")::pg_catalog.oid, r.* FROM (VALUES (1)) AS one(x) "
                // an inheritance parent's own rows only (ONLY: no scan of its children, whose keys may have no
                // index); a partitioned table's are its partitions' (a one-time filter: no scan for a plain table)
                + "LEFT JOIN (SELECT true, " + String.join(", ", columns) + " FROM ONLY " + table + " t0 WHERE "
                + String.join(" AND ", key) + " UNION ALL SELECT true, " + String.join(", ", columns) + " FROM " + table
                + " t0 WHERE " + String.join(" AND ", key) + " AND (SELECT c.relkind FROM pg_catalog.pg_class c "
                + "WHERE c.oid = " + oid + ") = 'p' LIMIT 2) AS r ON true) TO STDOUT";
    }

    /** An escape string literal: its meaning does not depend on {@code standard_conforming_strings}. */
    private static String literal(String text) {
        return "E'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    private static CdcException changed(PgRelation relation, List<Integer> fields, PostgresPosition position,
            String why) {
        String columns = fields.stream().map(f -> relation.shape.columns().get(f).name()).collect(Collectors.joining(", "));
        return new CdcException(CdcException.Kind.DECODE, "The unchanged TOASTed values of " + columns + " that an "
                + "update of " + relation.table.qualifiedName() + " at " + position + " did not send cannot be read "
                + "from the table as the update left them: the table changed since (" + why + "). With '"
                + PostgresOptions.TOAST_RESELECT.key() + "' such values are read when the update is decoded, and a "
                + "schema change in between leaves them unreadable. Restart the job without state to read the table "
                + "anew; ALTER TABLE " + PgPrerequisites.qualified(relation.table) + " REPLICA IDENTITY FULL; makes "
                + "updates carry them.");
    }
}
