package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * The binlog's query events: the brackets of transactions, and statements of their own (DDL), whose
 * changes of captured tables become schema change (and truncation) records, classified against the
 * shapes the stream held before them ({@link HeldShapes}). A data change logged as a statement, not
 * as rows, fails the stream unless it surely touches no table this source captures.
 */
final class BinlogStatements {
    private static final Pattern ROLLBACK_TO = Pattern.compile("ROLLBACK\\s+(WORK\\s+)?TO\\b");
    private final MySqlSourceConfig config;
    private final TableFilter filter;
    private final Connection connection;
    private final BinlogTables tables;
    private final TableNameCase nameCase;
    /** What DDL statements are classified against (only {@link #statement} and the rows read update it). */
    private final HeldShapes heldShapes;
    private final BinlogCursor cursor;
    private final XaCommits xaCommits;
    private final StreamFailures failures;
    /** The tables the reader captures (see {@link #captured}); null until it says, then the filter counts. */
    @Nullable private volatile Set<TableId> captured;

    BinlogStatements(MySqlSourceConfig config, TableFilter filter, Connection connection, BinlogTables tables,
            TableNameCase nameCase, HeldShapes heldShapes, BinlogCursor cursor, XaCommits xaCommits,
            StreamFailures failures) {
        this.config = config;
        this.filter = filter;
        this.connection = connection;
        this.tables = tables;
        this.nameCase = nameCase;
        this.heldShapes = heldShapes;
        this.cursor = cursor;
        this.xaCommits = xaCommits;
        this.failures = failures;
    }

    /** The tables the reader delivers as a changelog. */
    void captured(Set<TableId> tables) {
        captured = Set.copyOf(tables);
    }

    void query(EventHeaderV4 header, QueryEventData query) {
        requireRowsLogged(header, query);
        String sql = query.getSql().trim().toUpperCase(Locale.ROOT);
        if (!sql.equals("BEGIN") && !sql.equals("COMMIT") && !sql.equals("ROLLBACK")) {
            requireNoStatementChange(header, query); // transaction brackets need no parse
        }
        if (ROLLBACK_TO.matcher(sql).lookingAt() && cursor.changesInTransaction() > 0) {
            // logged only when the transaction changed a non-transactional table too: the undone rows are before it
            throw failures.rolledBackToSavepoint(at(header), cursor.transaction());
        }
        if (sql.startsWith("XA COMMIT") || sql.startsWith("XA ROLLBACK")) {
            xaCommits.outcome(sql, header.getPosition()); // of a transaction prepared apart, by its XID
        }
        if (sql.equals("BEGIN") || sql.startsWith("XA START")) {
            if (cursor.transaction() == null) {
                cursor.begin(header.getPosition(), null);
            }
            cursor.standalone(false); // its rows and statements follow, up to its commit
            if (sql.startsWith("XA START") && config.flavor() == ServerFlavor.MYSQL) {
                cursor.holdXa(); // MariaDB's GTID says whether an XA transaction's group is a prepare (BinlogEvents)
            }
        } else if (sql.equals("COMMIT") || sql.equals("ROLLBACK")) {
            cursor.commit(header.getNextPosition());
        } else if (cursor.transaction() == null || cursor.standalone()) {
            // a statement of its own (DDL): the catalogue may have changed under the shapes
            tables.forgetShapes();
            if (cursor.transaction() == null) {
                cursor.begin(header.getPosition(), null);
            }
            statement(header, query, changes(query));
            cursor.commit(header.getNextPosition());
        } else {
            // CREATE TABLE ... SELECT: the statement opens the transaction that holds its rows
            List<MySqlDdl.Change> changes = changes(query);
            if (!changes.isEmpty()) {
                tables.forgetShapes();
                statement(header, query, changes);
            }
        }
    }

    /** The tables the statement changes, read in its session's sql_mode and named as the server names them. */
    private List<MySqlDdl.Change> changes(QueryEventData query) {
        Set<TableId> known = captured;
        return MySqlDdl.parse(query.getSql(), query.getDatabase(), SqlMode.of(query)).stream()
                .map(c -> c.named(t -> nameCase.resolve(t, known))).collect(Collectors.toList());
    }

    /** Fails at a statement that changed rows of a captured table without logging them ({@link UnloggedRowDdl}). */
    private void requireRowsLogged(EventHeaderV4 header, QueryEventData query) {
        UnloggedRowDdl.Found found = UnloggedRowDdl.read(query.getSql(), query.getDatabase(), SqlMode.of(query));
        if (found == null) {
            return;
        }
        for (TableId named : found.tables) {
            TableId table = nameCase.resolve(named, captured);
            if (filter.matches(table)) {
                throw failures.unloggedRows(table, found, at(header));
            }
        }
    }

    /** A {@code LOAD DATA} statement logged as a statement ({@code Execute_load_query}). */
    void load(EventHeaderV4 header, QueryEventData query) {
        requireNoStatementChange(header, query);
    }

    /**
     * A change logged as a statement (a session set {@code binlog_format} to STATEMENT or MIXED) has
     * no rows to read: fails unless it surely changes only a table this source does not capture.
     */
    private void requireNoStatementChange(EventHeaderV4 header, QueryEventData query) {
        TableId table = MySqlDdl.dmlTable(query.getSql(), query.getDatabase(), SqlMode.of(query));
        if (table == MySqlDdl.NOT_DML) {
            return;
        }
        table = table == null ? null : nameCase.resolve(table, captured);
        if (table != null && !filter.matches(table)) {
            return;
        }
        throw failures.loggedAsStatement(at(header), table, query.getDatabase());
    }

    /** Where an event is: MariaDB gives the events inside a transaction's group no end, so there the group's start. */
    private String at(EventHeaderV4 header) {
        long at = header.getPosition() >= 0 || cursor.transaction() == null ? header.getPosition()
                : cursor.transaction().offset();
        return cursor.file() + ":" + at;
    }

    /**
     * Schema changes (and truncations) of captured tables, one record each, positioned inside the
     * statement's transaction so that a restart between them emits the rest once. A statement with
     * changes counts as an event of its transaction, as a row event does.
     */
    private void statement(EventHeaderV4 header, QueryEventData query, List<MySqlDdl.Change> changes) {
        if (changes.isEmpty()) {
            return;
        }
        // counted with the row events: a statement inside a transaction is followed by its rows
        long index = cursor.nextEvent();
        Instant commitTime = Instant.ofEpochMilli(header.getTimestamp());
        int from = cursor.deliveredBefore(index) ? changes.size() : cursor.firstToDeliver(index);
        for (int i = 0; i < changes.size(); i++) {
            MySqlDdl.Change change = changes.get(i);
            if (!filter.matches(change.table)) {
                continue;
            }
            long number = cursor.nextChange();
            if (i < from) {
                continue; // delivered before the restart
            }
            if (change.renamedFrom != null && isCaptured(change.table) && !isCaptured(change.renamedFrom)) {
                throw failures.renamedIn(change.renamedFrom, change.table, cursor.file() + ":" + header.getPosition());
            }
            if (change.kind == MySqlDdl.Kind.CREATE_TABLE || change.kind == MySqlDdl.Kind.ALTER_TABLE) {
                requireLoggedCascades(change.table);
            }
            MySqlPosition position = cursor.inTransaction(index, i + 1);
            SourceInfo source = SourceInfo.stream(config.flavor().sourceName(), position, commitTime);
            ChangeEvent event = change.kind == MySqlDdl.Kind.TRUNCATE_TABLE
                    ? ChangeEvent.builder(Op.TRUNCATE, change.table, source)
                            .transaction(cursor.transactionInfo(number)).build()
                    : HeldShapes.leavesShape(change, query.getSql()) ? unchanged(change, query.getSql(), source, number)
                    : schemaChange(change, query.getSql(), source, number);
            cursor.deliver(StreamRecord.of(event, position)); // after the transaction's held rows
        }
    }

    /**
     * The schema change of one table, classified against the shape the stream held before it. Its shape
     * is the catalogue's when the classification checked the statement against it; an {@code unknown}
     * change has none: the catalogue read now may already hold later statements (a statement read late).
     */
    private ChangeEvent schemaChange(MySqlDdl.Change change, String sql, SourceInfo source, long number) {
        RowShape after = change.kind == MySqlDdl.Kind.DROP_TABLE ? null : tables.catalogueShape(change.table);
        List<ShapeChange> classified = heldShapes.classify(change, sql, tables.rowsShape(change.table), after);
        tables.forgetRowsShape(change.table);
        boolean unknown = classified.stream().anyMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN);
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, change.table, source)
                .after(SchemaChangeRows.of(change.table, change.kind.schemaChange(), sql)).shape(unknown ? null : after)
                .shapeChanges(classified).transaction(cursor.transactionInfo(number)).build();
    }

    /**
     * A statement that cannot change the table's shape (an index, a default, a table option): classified
     * as such from the statement alone, with the shape held before it, which it leaves (none when none is
     * held: the catalogue's now may hold later statements).
     */
    private ChangeEvent unchanged(MySqlDdl.Change change, String sql, SourceInfo source, long number) {
        RowShape left = heldShapes.unchanged(change.table, tables.rowsShape(change.table));
        tables.forgetRowsShape(change.table);
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, change.table, source)
                .after(SchemaChangeRows.of(change.table, change.kind.schemaChange(), sql)).shape(left)
                .shapeChanges(List.of(ShapeChange.unchanged())).transaction(cursor.transactionInfo(number)).build();
    }

    /** A captured table created or altered while the stream runs gets the start's foreign key check. */
    private void requireLoggedCascades(TableId table) {
        try {
            config.foreignKeyCascades().check(connection, List.of(table));
        } catch (SQLException goneOrUnreadable) {
            // dropped since, or not readable: no key of it is in force now
        }
    }

    /** Whether the reader delivers {@code table}'s changes as a changelog (the filter's, until it says). */
    private boolean isCaptured(TableId table) {
        Set<TableId> known = captured;
        return known == null ? filter.matches(table) : known.contains(table);
    }
}
