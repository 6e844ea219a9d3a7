package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.sqlserver.stream.CaptureFloors;
import io.rustcdc.flink.sqlserver.stream.CaptureInstance;
import io.rustcdc.flink.sqlserver.stream.ChangeRow;
import io.rustcdc.flink.sqlserver.stream.InstancePage;
import io.rustcdc.flink.sqlserver.stream.InstanceRead;
import io.rustcdc.flink.sqlserver.stream.WindowBatch;
import io.rustcdc.flink.sqlserver.stream.WindowCursor;
import io.rustcdc.flink.sqlserver.stream.WindowPlanner;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * The change tables read one LSN window at a time ({@link WindowCursor}, {@link WindowPlanner},
 * {@link WindowBatch}) on one connection: each window ends at the capture job's maximum LSN when it
 * opens, every capture instance of a captured table is read in it from max(window start, its floor)
 * a page at a time, and the position passes a window only once it is read to its end. Nothing is
 * confirmed to SQL Server, which keeps no reader position: the cleanup job alone decides how long
 * changes stay, and a floor raised past unread changes fails as purged ({@link CaptureFloors}).
 */
final class SqlServerChangeStream implements ChangeStream<SqlServerPosition> {
    /**
     * SQL Server's answer to a change function asked for LSNs outside the instance's range ("insufficient number of
     * arguments").
     */
    static final int INVALID_RANGE = 313;

    private final SqlServerSourceConfig config;
    private final TableFilter filter;
    private final Connection connection;
    private final WindowCursor cursor;
    private final CaptureFloors floors = new CaptureFloors();
    private final Deque<StreamRecord<SqlServerPosition>> pending = new ArrayDeque<>();
    /** Each instance's columns by its name, and the change table they were read from (an instance created again has another). */
    private final Map<String, SqlServerTable> shapes = new HashMap<>();
    private final Map<String, Integer> shapeTables = new HashMap<>();

    SqlServerChangeStream(SqlServerSourceConfig config, TableFilter filter, SqlServerPosition from) {
        this.config = config;
        this.filter = filter;
        this.cursor = new WindowCursor(from);
        this.connection = SqlServerConnections.connect(config);
        try {
            Instant positionTime = commitTime(from.commitLsn());
            for (SqlServerCatalog.InstanceRow row : instanceRows()) {
                floors.opened(row.instance, from, row.created, positionTime);
            }
        } catch (SQLException e) {
            close();
            throw failure(e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    @Nullable
    public StreamRecord<SqlServerPosition> poll(Duration timeout) throws InterruptedException {
        if (pending.isEmpty()) {
            try {
                fill();
            } catch (SQLException e) {
                throw failure(e);
            }
        }
        if (pending.isEmpty()) {
            Thread.sleep(Math.max(1, Math.min(timeout.toMillis(), config.pollInterval().toMillis())));
            return null;
        }
        return pending.poll();
    }

    /** One round of reads of the current window into {@link #pending}. */
    private void fill() throws SQLException {
        Lsn max = maxLsn();
        Lsn end = max == null ? null : cursor.window(max);
        if (end == null) {
            return;
        }
        List<CaptureInstance> instances = new ArrayList<>();
        for (SqlServerCatalog.InstanceRow row : instanceRows()) {
            instances.add(row.instance);
        }
        SqlServerPosition start = cursor.position();
        List<InstancePage> pages = new ArrayList<>();
        for (InstanceRead read : WindowPlanner.plan(start, end, instances, floors)) {
            pages.add(read(read, start));
        }
        WindowBatch batch = WindowBatch.of(pages, end);
        List<ChangeRow> rows = batch.rows();
        for (int i = 0; i < rows.size(); i++) {
            ChangeRow row = rows.get(i);
            if (row.operation() == ChangeOperation.UPDATE_BEFORE) {
                ChangeRow next = i + 1 < rows.size() ? rows.get(++i) : null;
                if (next == null || next.operation() != ChangeOperation.UPDATE_AFTER
                        || !next.position().seqval().equals(row.position().seqval())
                        || next.position().commandId() != row.position().commandId()) {
                    throw new CdcException(CdcException.Kind.STATE, "Capture instance '" + row.instance() + "' has an "
                            + "update's old row at " + row.position() + " without its new row after it");
                }
                pending.add(StreamRecord.of(event(Op.UPDATE, row, next), next.position()));
            } else {
                pending.add(StreamRecord.of(event(row.operation() == ChangeOperation.DELETE ? Op.DELETE : Op.INSERT,
                        row, row), row.position()));
            }
        }
        if (rows.isEmpty() || rows.get(rows.size() - 1).position().compareTo(batch.next()) < 0) {
            pending.add(StreamRecord.progress(batch.next()));
        }
        cursor.advance(batch);
    }

    private InstancePage read(InstanceRead read, SqlServerPosition start) throws SQLException {
        CaptureInstance instance = read.instance();
        SqlServerTable shape = shape(instance);
        InstancePage page;
        try {
            page = ChangeTableReader.read(connection, config.cdcSchema(), read, shape, config.maxEventsPerPoll());
        } catch (SQLException e) {
            if (e.getErrorCode() == INVALID_RANGE) {
                floors.rangeRefused(read, floor(instance), start);
            }
            throw e;
        }
        floors.requireUnpurged(instance, floor(instance), start); // the cleanup may have run during the read
        return page;
    }

    private ChangeEvent event(Op op, ChangeRow before, ChangeRow after) {
        SqlServerTable shape = shapes.get(before.instance());
        Row old = op == Op.INSERT ? null : row(shape, before);
        Row now = op == Op.DELETE ? null : row(shape, after);
        return ChangeEvent.builder(op, shape.description.table(),
                SourceInfo.stream(SqlServerConnector.NAME, after.position(), null))
                .before(old).after(now).shape(shape.description.shape()).build();
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

    private SqlServerTable shape(CaptureInstance instance) throws SQLException {
        SqlServerTable shape = shapes.get(instance.name());
        if (shape == null || shapeTables.get(instance.name()) != instance.changeTable()) {
            shape = SqlServerCatalog.describeInstance(connection, instance,
                    SqlServerCatalog.describe(connection, instance.table()));
            shapes.put(instance.name(), shape);
            shapeTables.put(instance.name(), instance.changeTable());
        }
        return shape;
    }

    private List<SqlServerCatalog.InstanceRow> instanceRows() throws SQLException {
        List<SqlServerCatalog.InstanceRow> rows = new ArrayList<>();
        for (SqlServerCatalog.InstanceRow row : SqlServerCatalog.instances(connection, config.database(),
                config.cdcSchema())) {
            if (filter.matches(row.instance.table())) {
                rows.add(row);
            }
        }
        return rows;
    }

    @Nullable
    private Lsn maxLsn() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT sys.fn_cdc_get_max_lsn()")) {
            rs.next();
            byte[] b = rs.getBytes(1);
            return b == null ? null : Lsn.of(b);
        }
    }

    private Lsn floor(CaptureInstance instance) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT sys.fn_cdc_get_min_lsn(?)")) {
            s.setString(1, instance.name());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return Lsn.of(rs.getBytes(1));
            }
        }
    }

    /** The commit time SQL Server maps {@code lsn} to (the last commit at or before it); null when it maps none. */
    @Nullable
    private Instant commitTime(Lsn lsn) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT sys.fn_cdc_map_lsn_to_time(?)")) {
            s.setBytes(1, lsn.bytes());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                Timestamp t = rs.getTimestamp(1);
                return t == null ? null : t.toInstant();
            }
        }
    }

    /** SQL Server keeps no reader position: nothing to confirm (docs/sqlserver.md, "Positions"). */
    @Override
    public void confirm(SqlServerPosition position) {}

    private CdcException failure(SQLException e) {
        return SqlServerConnections.failure(config, e);
    }

    @Override
    public void close() {
        SqlServerConnections.close(connection);
    }
}
