package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.sqlserver.stream.Announcement;
import io.rustcdc.flink.sqlserver.stream.CaptureInstance;
import io.rustcdc.flink.sqlserver.stream.ChangeRow;
import io.rustcdc.flink.sqlserver.stream.InstanceAnnouncements;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stream's events from rows as the change tables return them: transaction, commit time, shape changes. */
class SqlServerEventsTest {
    private static final TableId ORDERS = TableId.of("shop", "dbo", "orders");
    private static final Lsn COMMIT = Lsn.parse("0000002D:000001A8:0003");

    private static SqlServerTable table(SqlServerColumn... columns) {
        return new SqlServerTable(ORDERS, 581577110, List.of(columns), List.of("id"),
                Arrays.asList(new String[columns.length]));
    }

    private static SqlServerColumn column(String name, String type) {
        return SqlServerColumn.of("dbo.orders", name, type, 4, 10, 0, !name.equals("id"));
    }

    @Test
    void aChangeCarriesItsCommitAsTransactionAndItsCommitTime() {
        SqlServerTable shape = table(column("id", "int"), column("qty", "int"));
        Instant committed = Instant.parse("2026-07-20T12:34:56.997Z");
        ChangeRow old = new ChangeRow("dbo_orders", COMMIT, 2, Lsn.parse("0000002D:000001A0:0002"),
                ChangeOperation.UPDATE_BEFORE, new Object[] {1L, 5L}, committed);
        ChangeRow now = new ChangeRow("dbo_orders", COMMIT, 2, Lsn.parse("0000002D:000001A0:0002"),
                ChangeOperation.UPDATE_AFTER, new Object[] {1L, 6L}, committed);
        ChangeEvent update = SqlServerEvents.change(old, now, 3, shape);
        assertThat(update.op()).isEqualTo(Op.UPDATE);
        assertThat(update.before().get("qty")).isEqualTo(5L);
        assertThat(update.after().get("qty")).isEqualTo(6L);
        assertThat(update.transaction()).isEqualTo(TransactionInfo.of("0000002D:000001A8:0003", 3,
                TransactionInfo.UNKNOWN));
        assertThat(update.source().commitTime()).isEqualTo(committed);
        assertThat(update.source().position()).isEqualTo(now.position());

        ChangeRow deleted = new ChangeRow("dbo_orders", COMMIT, 3, Lsn.parse("0000002D:000001A0:0004"),
                ChangeOperation.DELETE, new Object[] {1L, ChangeRow.ABSENT});
        ChangeEvent delete = SqlServerEvents.change(deleted, deleted, 1, shape);
        assertThat(delete.op()).isEqualTo(Op.DELETE);
        assertThat(delete.after()).isNull();
        assertThat(delete.before().absentFields()).containsExactly("qty");
        assertThat(delete.source().commitTime()).as("no commit times without server-time-zone").isNull();
        assertThat(delete.transaction().id()).isEqualTo("0000002D:000001A8:0003");
    }

    @Test
    void aTablesFirstInstanceIsACreatedTableAndANewerOneItsDifference() {
        CaptureInstance old = CaptureInstance.of("dbo_orders", 1, ORDERS, Lsn.parse("00000001:00000001:0001"));
        CaptureInstance v2 = CaptureInstance.of("dbo_orders_v2", 2, ORDERS, COMMIT);
        SqlServerPosition start = SqlServerPosition.afterCommit(Lsn.parse("00000002:00000001:0001"));
        List<Announcement> due = new InstanceAnnouncements().due(List.of(old.supersededAt(COMMIT), v2), start,
                SqlServerPosition.afterCommit(COMMIT));
        Announcement created = due.get(0);
        Announcement switched = due.get(1);
        SqlServerTable before = table(column("id", "int"), column("note", "int"));
        SqlServerTable after = table(column("id", "int"), column("remark", "int"), column("qty", "bigint"));

        ChangeEvent create = SqlServerEvents.announcement(created, before, null, Map.of(), Map.of());
        assertThat(create.op()).isEqualTo(Op.SCHEMA_CHANGE);
        assertThat(SchemaChangeRows.ddlType(create.after())).isEqualTo(DdlType.CREATE_TABLE);
        assertThat(create.shapeChanges()).containsExactly(ShapeChange.tableCreated(before.description.shape()));

        ChangeEvent alter = SqlServerEvents.announcement(switched, after, before, Map.of("id", 1, "note", 2),
                Map.of("id", 1, "remark", 2, "qty", 3));
        assertThat(SchemaChangeRows.ddlType(alter.after())).isEqualTo(DdlType.ALTER_TABLE);
        assertThat(alter.shape()).isEqualTo(after.description.shape());
        assertThat(alter.source().position()).isEqualTo(SqlServerPosition.announcing(COMMIT, 2));
        assertThat(alter.shapeChanges()).extracting(ShapeChange::kind)
                .containsExactly(ShapeChange.Kind.COLUMN_RENAMED, ShapeChange.Kind.COLUMN_ADDED);
        assertThat(SqlServerEvents.announcement(switched, before, before, Map.of("id", 1, "note", 2),
                Map.of("id", 1, "note", 2))).as("an instance with the same columns changes nothing").isNull();
    }
}
