package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.sqlserver.stream.ChangeRow;
import io.rustcdc.flink.sqlserver.stream.InstancePage;
import io.rustcdc.flink.sqlserver.stream.InstanceRead;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one {@link InstanceRead}: a page of {@code cdc.fn_cdc_get_all_changes_<instance>(from, to,
 * N'all update old')} after the read's position, in change order, each row's captured columns decoded
 * by the instance's own column types.
 */
final class ChangeTableReader {
    private ChangeTableReader() {}

    static InstancePage read(Connection c, String cdcSchema, InstanceRead read, SqlServerTable shape, int pageSize)
            throws SQLException {
        SqlServerPosition after = read.after();
        String sql = "SELECT TOP (" + pageSize + ") __$start_lsn, __$seqval, __$operation"
                + (shape.columns.isEmpty() ? "" : ", " + shape.selectList())
                + " FROM " + SqlServerSql.quote(cdcSchema) + "."
                + SqlServerSql.quote("fn_cdc_get_all_changes_" + read.instance().name()) + "(?, ?, N'all update old')"
                + " WHERE (" + (after.isCommitEnd() ? "__$start_lsn > ?"
                        : "__$start_lsn > ? OR (__$start_lsn = ? AND (__$seqval > ? OR (__$seqval = ? AND "
                                + "__$operation > ?)))") + ")"
                + (read.below() == null ? "" : " AND __$start_lsn < ?")
                + " ORDER BY __$start_lsn, __$seqval, __$operation";
        List<ChangeRow> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            s.setBytes(i++, read.from().bytes());
            s.setBytes(i++, read.to().bytes());
            s.setBytes(i++, after.commitLsn().bytes());
            if (!after.isCommitEnd()) {
                s.setBytes(i++, after.commitLsn().bytes());
                s.setBytes(i++, after.seqval().bytes());
                s.setBytes(i++, after.seqval().bytes());
                s.setInt(i++, after.operation().code());
            }
            if (read.below() != null) {
                s.setBytes(i, read.below().bytes());
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Object[] values = new Object[shape.columns.size()];
                    for (int col = 0; col < values.length; col++) {
                        values[col] = SqlServerSession.decode(shape, col, rs, col + 4);
                    }
                    rows.add(new ChangeRow(read.instance().name(), Lsn.of(rs.getBytes(1)), Lsn.of(rs.getBytes(2)),
                            ChangeOperation.of(rs.getInt(3)), values));
                }
            }
        }
        return new InstancePage(read, rows, pageSize);
    }
}
