package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.sqlserver.stream.Announcement;
import io.rustcdc.flink.sqlserver.stream.ChangeRow;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * The events of the change stream: a change of a captured table, with its commit time where read and
 * its transaction, and the schema change a capture instance brings. A transaction's id is its commit
 * LSN ({@code __$start_lsn}, printed {@code 0000002D:000001A8:0003}), which every row of it carries in
 * every change table and no other transaction has; a change's index is its number among the
 * transaction's changes of the tables the source reads, from 1; the count is not told (a transaction's
 * end is known only after its last change). Stateless.
 */
final class SqlServerEvents {
    private SqlServerEvents() {}

    /**
     * The change from {@code before} to {@code after}: one row of an insert or a delete, or an update's
     * old and new rows; {@code index}th of its transaction.
     */
    static ChangeEvent change(ChangeRow before, ChangeRow after, long index, SqlServerTable shape) {
        Op op = before.operation() == ChangeOperation.UPDATE_BEFORE ? Op.UPDATE
                : before.operation() == ChangeOperation.DELETE ? Op.DELETE : Op.INSERT;
        return ChangeEvent.builder(op, shape.description.table(),
                SourceInfo.stream(SqlServerConnector.NAME, after.position(), after.commitTime()))
                .before(op == Op.INSERT ? null : row(shape, before))
                .after(op == Op.DELETE ? null : row(shape, after))
                .shape(shape.description.shape())
                .transaction(TransactionInfo.of(after.position().commitLsn().toString(), index,
                        TransactionInfo.UNKNOWN))
                .build();
    }

    /**
     * The schema change of {@code announcement}: {@code table_created} for a table's first instance,
     * else the classified difference from its predecessor's columns ({@code before}); null when an
     * instance replaced another with the same columns (nothing changed for the rows).
     */
    @Nullable
    static ChangeEvent announcement(Announcement announcement, SqlServerTable now, @Nullable SqlServerTable before,
            Map<String, Integer> beforeIds, Map<String, Integer> nowIds) {
        TableId table = now.description.table();
        List<ShapeChange> changes;
        DdlType ddl;
        if (before == null) {
            changes = List.of(ShapeChange.tableCreated(now.description.shape()));
            ddl = DdlType.CREATE_TABLE;
        } else {
            changes = SqlServerShapeChanges.classify(before.description.shape(), beforeIds, now.description.shape(),
                    nowIds);
            ddl = DdlType.ALTER_TABLE;
            if (changes.isEmpty()) {
                return null;
            }
        }
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, table,
                SourceInfo.stream(SqlServerConnector.NAME, announcement.position(), null))
                .after(SchemaChangeRows.of(table, ddl, null)).shape(now.description.shape()).shapeChanges(changes)
                .build();
    }

    /** The row's values, each {@link ChangeRow#ABSENT} one left absent. */
    private static Row row(SqlServerTable shape, ChangeRow change) {
        Row.Builder row = Row.builder(shape.description.rowType());
        Object[] values = change.values();
        for (int i = 0; i < values.length; i++) {
            if (values[i] != ChangeRow.ABSENT) {
                row.set(i, values[i]);
            }
        }
        return row.build();
    }
}
