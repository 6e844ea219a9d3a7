package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.sqlserver.stream.Announcement;
import io.rustcdc.flink.sqlserver.stream.CaptureFloors;
import io.rustcdc.flink.sqlserver.stream.CaptureInstance;
import io.rustcdc.flink.sqlserver.stream.CommitClock;
import io.rustcdc.flink.sqlserver.stream.InstanceAnnouncements;
import io.rustcdc.flink.sqlserver.stream.InstancePage;
import io.rustcdc.flink.sqlserver.stream.InstanceRead;
import io.rustcdc.flink.sqlserver.stream.StreamSteps;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change tables read one LSN window at a time ({@link WindowCursor}, {@link WindowPlanner},
 * {@link WindowBatch}) on one connection: each window ends at the capture job's maximum LSN when it
 * opens, every capture instance of a captured table is read in it from max(window start, its floor)
 * a page at a time, and the position passes a window only once it is read to its end. Each batch goes
 * out as {@link StreamSteps}: changes with their transaction (and commit time, with a {@link
 * CommitClock}), each transaction's end, and a schema change where a capture instance begins ({@link
 * InstanceAnnouncements}). Nothing is confirmed to SQL Server, which keeps no reader position: the
 * cleanup job alone decides how long changes stay, and a floor raised past unread changes fails as
 * purged ({@link CaptureFloors}).
 */
final class SqlServerChangeStream implements ChangeStream<SqlServerPosition> {
    /**
     * SQL Server's answer to a change function asked for LSNs outside the instance's range ("insufficient number of
     * arguments").
     */
    static final int INVALID_RANGE = 313;
    private static final Logger LOG = LoggerFactory.getLogger(SqlServerChangeStream.class);

    private final SqlServerSourceConfig config;
    private final TableFilter filter;
    private final Connection connection;
    private final SqlServerPosition from;
    private final WindowCursor cursor;
    private final CaptureFloors floors = new CaptureFloors();
    private final InstanceAnnouncements announcements = new InstanceAnnouncements();
    private StreamSteps steps;
    @Nullable private final CommitClock clock;
    private final Deque<StreamRecord<SqlServerPosition>> pending = new ArrayDeque<>();
    /** Each instance's columns by its name, and the change table they were read from (an instance created again has another). */
    private final Map<String, SqlServerTable> shapes = new HashMap<>();
    private final Map<String, Integer> shapeTables = new HashMap<>();
    /** The instances listed when the stream opened. */
    private final List<CaptureInstance> openedWith = new ArrayList<>();
    @Nullable private CaptureMetrics metrics;
    private volatile int instancesRead;
    @Nullable private volatile Counter windowsRead;
    @Nullable private volatile Counter roundsCut;

    SqlServerChangeStream(SqlServerSourceConfig config, TableFilter filter, SqlServerPosition from) {
        this.config = config;
        this.filter = filter;
        this.from = from;
        this.cursor = new WindowCursor(from);
        this.clock = config.serverTimeZone() == null ? null : new CommitClock(config.serverTimeZone());
        this.connection = SqlServerConnections.connect(config);
        try {
            Instant positionTime = commitTime(from.commitLsn());
            for (SqlServerCatalog.InstanceRow row : instanceRows()) {
                floors.opened(row.instance, from, row.created, positionTime);
                openedWith.add(row.instance);
            }
            announcements.opened(openedWith, from);
            this.steps = new StreamSteps(from, StreamSteps.inside(from) ? taken(from) : 0);
        } catch (SQLException e) {
            close();
            throw failure(e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** A table the stream's events carried before the position must still have the instance that held them. */
    @Override
    public void resumeShapes(EmittedShapes shapes) {
        Set<TableId> streamed = new HashSet<>();
        for (TableId table : shapes.tables()) {
            if (filter.matches(table)) {
                streamed.add(table);
            }
        }
        CaptureFloors.requireCovered(streamed, openedWith, from);
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
        Lsn end = window();
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
        List<Announcement> due = announcements.due(instances, start, batch.next());
        for (StreamSteps.Step step : steps.of(batch, due)) {
            StreamRecord<SqlServerPosition> record = record(step);
            if (record != null) {
                pending.add(record);
            }
        }
        cursor.advance(batch);
        instancesRead = pages.size();
        Counter counter = batch.windowDone() ? windowsRead : roundsCut;
        if (counter != null) {
            counter.inc();
        }
    }

    @Nullable
    private StreamRecord<SqlServerPosition> record(StreamSteps.Step step) throws SQLException {
        switch (step.kind()) {
            case CHANGE:
                return StreamRecord.of(SqlServerEvents.change(step.before(), step.after(), step.index(),
                        shapes.get(step.before().instance())), step.position());
            case ANNOUNCEMENT:
                ChangeEvent event = announce(step.announcement());
                return event == null ? null : StreamRecord.of(event, step.position());
            case TRANSACTION_END:
                return StreamRecord.transactionEnd(step.position());
            default:
                return StreamRecord.progress(step.position());
        }
    }

    @Nullable
    private ChangeEvent announce(Announcement announcement) throws SQLException {
        CaptureInstance predecessor = announcement.predecessor();
        CaptureInstance instance = announcement.instance();
        LOG.info("The stream reached capture instance {} of table {} (floor {}{}) at {}", instance.name(),
                SqlServerCatalog.name(instance.table()), instance.floor(), predecessor == null ? ""
                        : ", after " + predecessor.name() + ", which may be dropped now", announcement.position());
        SqlServerTable now = shape(instance);
        if (predecessor == null) {
            return SqlServerEvents.announcement(announcement, now, null, Map.of(), Map.of());
        }
        return SqlServerEvents.announcement(announcement, now, shape(predecessor),
                SqlServerCatalog.capturedColumnIds(connection, config.cdcSchema(), predecessor),
                SqlServerCatalog.capturedColumnIds(connection, config.cdcSchema(), announcement.instance()));
    }

    /**
     * The window to read: the open one, else one up to the capture job's maximum LSN when it holds
     * commits after the position; null when there is nothing new. With commit times, the server's
     * clock must still run at the configured offset.
     */
    @Nullable
    private Lsn window() throws SQLException {
        byte[] max;
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT sys.fn_cdc_get_max_lsn(), DATEPART(TZOFFSET, SYSDATETIMEOFFSET())")) {
            rs.next();
            max = rs.getBytes(1);
            if (clock != null) {
                clock.requireServerOffset(rs.getInt(2), SqlServerSourceConfig.SERVER_TIME_ZONE);
            }
        }
        return max == null ? null : cursor.window(Lsn.of(max));
    }

    /** The changes of {@code from}'s transaction up to it, in the instances that hold its commit for the stream. */
    private long taken(SqlServerPosition from) throws SQLException {
        long taken = 0;
        for (CaptureInstance instance : openedWith) {
            Lsn below = instance.supersededAt();
            if (instance.floor().compareTo(from.commitLsn()) <= 0
                    && (below == null || from.commitLsn().compareTo(below) < 0)) {
                taken += ChangeTableReader.changesUpTo(connection, config.cdcSchema(), instance.name(), from);
            }
        }
        return taken;
    }

    private InstancePage read(InstanceRead read, SqlServerPosition start) throws SQLException {
        CaptureInstance instance = read.instance();
        SqlServerTable shape = shape(instance);
        InstancePage page;
        try {
            page = ChangeTableReader.read(connection, config.cdcSchema(), read, shape, config.maxEventsPerPoll(), clock);
        } catch (SQLException e) {
            if (e.getErrorCode() == INVALID_RANGE) {
                floors.rangeRefused(read, floor(instance), start);
            }
            throw e;
        }
        floors.requireUnpurged(instance, floor(instance), start); // the cleanup may have run during the read
        return page;
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

    /**
     * The capture job's gauges ({@link CaptureMetrics}, sampled on a thread of their own), the number
     * of capture instances the last round read, and counters of windows read to their end and of rounds
     * a full page cut short (often: raise {@code stream.max-events-per-poll}).
     */
    @Override
    public synchronized void registerMetrics(MetricGroup group) {
        if (metrics == null) {
            metrics = new CaptureMetrics(config);
        }
        metrics.register(group);
        group.gauge("captureInstancesRead", () -> instancesRead);
        windowsRead = group.counter("windowsRead");
        roundsCut = group.counter("roundsCutByFullPage");
    }

    private CdcException failure(SQLException e) {
        return SqlServerConnections.failure(config, e);
    }

    @Override
    public synchronized void close() {
        if (metrics != null) {
            metrics.close();
            metrics = null;
        }
        SqlServerConnections.close(connection);
    }
}
