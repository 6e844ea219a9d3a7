package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.sqlserver.stream.ChangeRow;
import io.rustcdc.flink.sqlserver.stream.CommitClock;
import io.rustcdc.flink.sqlserver.stream.InstancePage;
import io.rustcdc.flink.sqlserver.stream.InstanceRead;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;

/**
 * Runs one {@link InstanceRead}: a page of {@code cdc.fn_cdc_get_all_changes_<instance>(from, to,
 * N'all update old')} after the read's position, in change order, each row's captured columns decoded
 * by the instance's own column types. The function checks the range against the instance's timeline
 * (error 313); each row's {@code __$command_id}, which orders a transaction's statements and which the
 * function does not return, is joined from the change table {@code <instance>_CT} by commit LSN,
 * sequence value and operation. A large value the change table does not hold (an update's old
 * varchar(max), nvarchar(max), varbinary(max) or xml value when the update left it unchanged, as
 * {@code __$update_mask} says; text, ntext and image in deletes and old rows) is {@link ChangeRow#ABSENT},
 * never the NULL the change table shows. With a {@link CommitClock}, each row's commit time is read
 * from {@code cdc.lsn_time_mapping} in the same query (an outer join: a commit without a mapping row
 * fails, it is never left out).
 */
final class ChangeTableReader {
    /** The columns before the captured ones: commit LSN, command id, sequence value, operation. */
    private static final int FIXED = 4;

    private ChangeTableReader() {}

    static InstancePage read(Connection c, String cdcSchema, InstanceRead read, SqlServerTable shape, int pageSize,
            @Nullable CommitClock clock) throws SQLException {
        String instance = read.instance().name();
        List<SqlServerColumn> columns = shape.columns;
        StringBuilder sql = new StringBuilder("SELECT TOP (" + pageSize + ") f.__$start_lsn, "
                + "ISNULL(ct.__$command_id, 0), f.__$seqval, f.__$operation");
        if (!columns.isEmpty()) {
            sql.append(", ").append(shape.selectList("f."));
        }
        for (SqlServerColumn column : columns) {
            if (column.oldValueOnlyWhenChanged()) {
                sql.append(", sys.fn_cdc_is_bit_set(sys.fn_cdc_get_column_ordinal(N'").append(literal(instance))
                        .append("', N'").append(literal(column.name())).append("'), f.__$update_mask)");
            }
        }
        String schema = SqlServerSql.quote(cdcSchema) + ".";
        if (clock != null) {
            sql.append(", CONVERT(varchar(23), m.tran_end_time, 121)");
        }
        sql.append(" FROM ").append(schema).append(SqlServerSql.quote("fn_cdc_get_all_changes_" + instance))
                .append("(?, ?, N'all update old') f JOIN ").append(schema)
                .append(SqlServerSql.quote(instance + "_CT")).append(" ct ON ct.__$start_lsn = f.__$start_lsn AND "
                        + "ct.__$seqval = f.__$seqval AND ct.__$operation = f.__$operation");
        if (clock != null) {
            sql.append(" LEFT JOIN ").append(schema).append("lsn_time_mapping m ON m.start_lsn = f.__$start_lsn");
        }
        sql.append(" WHERE (")
                .append(read.after().isCommitEnd() ? "f.__$start_lsn > ?" : "f.__$start_lsn > ? OR (f.__$start_lsn = ? "
                        + "AND (ISNULL(ct.__$command_id, 0) > ? OR (ISNULL(ct.__$command_id, 0) = ? AND (f.__$seqval > ? "
                        + "OR (f.__$seqval = ? AND f.__$operation > ?)))))")
                .append(")").append(read.below() == null ? "" : " AND f.__$start_lsn < ?")
                .append(" ORDER BY f.__$start_lsn, ISNULL(ct.__$command_id, 0), f.__$seqval, f.__$operation");
        List<ChangeRow> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql.toString())) {
            bind(s, read);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(row(rs, instance, shape, clock));
                }
            }
        }
        return new InstancePage(read, rows, pageSize);
    }

    /**
     * The changes (an update's old and new rows as one) of {@code position}'s commit at or before it in
     * the instance's change table: how many of its transaction's changes in that instance a stream at
     * {@code position} has taken.
     */
    static long changesUpTo(Connection c, String cdcSchema, String instance, SqlServerPosition position)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT_BIG(*) FROM " + SqlServerSql.quote(cdcSchema) + "."
                + SqlServerSql.quote(instance + "_CT") + " WHERE __$start_lsn = ? AND __$operation <> 3 AND "
                + "(ISNULL(__$command_id, 0) < ? OR (ISNULL(__$command_id, 0) = ? AND (__$seqval < ? OR (__$seqval = ? "
                + "AND __$operation <= ?))))")) {
            s.setBytes(1, position.commitLsn().bytes());
            s.setInt(2, position.commandId());
            s.setInt(3, position.commandId());
            s.setBytes(4, position.seqval().bytes());
            s.setBytes(5, position.seqval().bytes());
            s.setInt(6, position.operation().code());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void bind(PreparedStatement s, InstanceRead read) throws SQLException {
        SqlServerPosition after = read.after();
        int i = 1;
        s.setBytes(i++, read.from().bytes());
        s.setBytes(i++, read.to().bytes());
        s.setBytes(i++, after.commitLsn().bytes());
        if (!after.isCommitEnd()) {
            s.setBytes(i++, after.commitLsn().bytes());
            s.setInt(i++, after.commandId());
            s.setInt(i++, after.commandId());
            s.setBytes(i++, after.seqval().bytes());
            s.setBytes(i++, after.seqval().bytes());
            s.setInt(i++, after.operation().code());
        }
        if (read.below() != null) {
            s.setBytes(i, read.below().bytes());
        }
    }

    private static ChangeRow row(ResultSet rs, String instance, SqlServerTable shape, @Nullable CommitClock clock)
            throws SQLException {
        ChangeOperation op = ChangeOperation.of(rs.getInt(4));
        boolean oldRow = op == ChangeOperation.UPDATE_BEFORE;
        List<SqlServerColumn> columns = shape.columns;
        Object[] values = new Object[columns.size()];
        int maskColumn = FIXED + columns.size();
        for (int i = 0; i < values.length; i++) {
            SqlServerColumn column = columns.get(i);
            boolean held = true;
            if (column.oldValueOnlyWhenChanged()) {
                held = !oldRow || rs.getBoolean(++maskColumn);
            } else if (column.neverInOldRows()) {
                held = !oldRow && op != ChangeOperation.DELETE;
            }
            values[i] = held ? SqlServerSession.decode(shape, i, rs, FIXED + 1 + i) : ChangeRow.ABSENT;
        }
        Lsn commit = Lsn.of(rs.getBytes(1));
        int timeColumn = FIXED + columns.size() + (int) columns.stream().filter(SqlServerColumn::oldValueOnlyWhenChanged)
                .count() + 1;
        Instant commitTime = clock == null ? null : clock.commitTime(rs.getString(timeColumn), commit, instance);
        return new ChangeRow(instance, commit, rs.getInt(2), Lsn.of(rs.getBytes(3)), op, values, commitTime);
    }

    /** {@code text} inside an N'...' literal. */
    private static String literal(String text) {
        return text.replace("'", "''");
    }
}
