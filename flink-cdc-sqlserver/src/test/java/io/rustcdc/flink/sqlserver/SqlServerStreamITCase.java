package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The change stream on a real SQL Server (skipped without one, see {@link SqlServerDatabase}). */
@ExtendWith(SqlServerExtension.class)
@Timeout(600)
class SqlServerStreamITCase {
    @Test
    void insertsUpdatesAndDeletesArriveInOrderWithWholeRows(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_basic (id INT PRIMARY KEY, v NVARCHAR(20) NULL)")) {
            db.execute("INSERT INTO s_basic VALUES (1, N'one'), (2, N'twö')",
                    "UPDATE s_basic SET v = N'uno' WHERE id = 1", "DELETE FROM s_basic WHERE id = 2");
            List<ChangeEvent> events = StreamTestSupport.events(stream, 4);
            assertThat(events).extracting(ChangeEvent::op).containsExactly(Op.INSERT, Op.INSERT, Op.UPDATE, Op.DELETE);
            assertThat(events.get(1).after().get("v")).isEqualTo("twö");
            assertThat(events.get(2).before().get("v")).isEqualTo("one");
            assertThat(events.get(2).after().get("v")).isEqualTo("uno");
            assertThat(events.get(3).before().get("id")).isEqualTo(2L);
            assertThat(events.get(0).shape().primaryKey()).containsExactly("id");
        }
    }

    /** Two instances, pages of 5: a full page cuts each batch, and every row still arrives once, in order. */
    @Test
    void windowsCutByFullPagesDeliverEveryRowOnce(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().maxEventsPerPoll(5).build(),
                "s_a (id INT PRIMARY KEY)", "s_b (id INT PRIMARY KEY)")) {
            List<String> statements = new ArrayList<>();
            for (int i = 0; i < 23; i++) {
                statements.add("BEGIN TRAN; INSERT INTO s_a VALUES (" + i + "); INSERT INTO s_b VALUES (" + i
                        + "), (" + (100 + i) + "); COMMIT");
            }
            db.execute(statements.toArray(String[]::new));
            List<StreamRecord<SqlServerPosition>> records = StreamTestSupport.records(stream, 69, Duration.ofSeconds(120));
            List<String> rows = records.stream().filter(r -> r.event() != null)
                    .map(r -> r.event().table().table() + ":" + r.event().after().get("id")).collect(Collectors.toList());
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 23; i++) {
                expected.addAll(List.of("s_a:" + i, "s_b:" + i, "s_b:" + (100 + i)));
            }
            assertThat(rows).containsExactlyElementsOf(expected);
            for (int i = 1; i < records.size(); i++) {
                assertThat(records.get(i).position()).isGreaterThanOrEqualTo(records.get(i - 1).position());
            }
        }
    }

    /**
     * A table enabled while the stream runs has a floor after the stream's position: normal, not purged;
     * its instance is a created table, announced before its first row.
     */
    @Test
    void anInstanceCreatedWhileStreamingIsReadFromItsFloor(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_first (id INT PRIMARY KEY)")) {
            db.execute("INSERT INTO s_first VALUES (1)");
            StreamTestSupport.events(stream, 1);
            db.execute("CREATE TABLE s_later (id INT PRIMARY KEY, v NVARCHAR(10) NULL)");
            db.enableTable("s_later");
            db.execute("INSERT INTO s_later VALUES (7, N'x')");
            List<ChangeEvent> events = StreamTestSupport.events(stream, 2);
            assertThat(events).extracting(e -> e.table().table()).containsExactly("s_later", "s_later");
            assertThat(events).extracting(ChangeEvent::op).containsExactly(Op.SCHEMA_CHANGE, Op.INSERT);
            assertThat(SchemaChangeRows.ddlType(events.get(0).after())).isEqualTo(DdlType.CREATE_TABLE);
            assertThat(events.get(0).shapeChanges()).containsExactly(ShapeChange.tableCreated(events.get(1).shape()));
            assertThat(events.get(1).shape().columns()).extracting(RowShape.Column::name).containsExactly("id", "v");
        }
    }

    /**
     * An ALTER's switch: a second capture instance of a captured table. Rows below its floor come from the
     * older instance with the older columns, then a schema change classifies the difference, then rows carry
     * the newer columns; the older instance dropped once the stream passed the newer one's floor loses nothing.
     */
    @Test
    void aNewerInstanceOfATableSwitchesWithItsShapeChange(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_alter (id INT PRIMARY KEY, note NVARCHAR(20) NULL)")) {
            db.execute("INSERT INTO s_alter VALUES (1, N'a')", "ALTER TABLE s_alter ADD qty INT NULL",
                    "INSERT INTO s_alter VALUES (2, N'b', 5)");
            db.enableInstance("s_alter", "dbo_s_alter_v2");
            db.execute("INSERT INTO s_alter VALUES (3, N'c', 7)");
            List<ChangeEvent> events = StreamTestSupport.events(stream, 4);
            assertThat(events).extracting(ChangeEvent::op).containsExactly(Op.INSERT, Op.INSERT, Op.SCHEMA_CHANGE,
                    Op.INSERT);
            assertThat(events.get(1).shape().columns()).extracting(RowShape.Column::name).as("the older instance's")
                    .containsExactly("id", "note");
            ChangeEvent alter = events.get(2);
            assertThat(SchemaChangeRows.ddlType(alter.after())).isEqualTo(DdlType.ALTER_TABLE);
            assertThat(alter.shapeChanges()).containsExactly(ShapeChange.columnAdded(
                    RowShape.Column.of("qty", "int", true), 2));
            Lsn floor = Lsn.parse(db.queryValue("SELECT CONVERT(varchar(22), start_lsn, 1) FROM cdc.change_tables "
                    + "WHERE capture_instance = N'dbo_s_alter_v2'"));
            int changeTable = Integer.parseInt(db.queryValue("SELECT object_id FROM cdc.change_tables "
                    + "WHERE capture_instance = N'dbo_s_alter_v2'"));
            assertThat(alter.source().position()).as("before the newer instance's floor commit")
                    .isEqualTo(SqlServerPosition.announcing(floor, changeTable));
            assertThat((SqlServerPosition) alter.source().position())
                    .isGreaterThan((SqlServerPosition) events.get(1).source().position())
                    .isLessThan((SqlServerPosition) events.get(3).source().position());
            assertThat(events.get(3).shape()).isEqualTo(alter.shape());
            assertThat(events.get(3).after().get("qty")).isEqualTo(7L);

            db.disableInstance("s_alter", "dbo_s_alter");
            db.execute("INSERT INTO s_alter VALUES (4, N'd', 9)");
            ChangeEvent after = StreamTestSupport.events(stream, 1).get(0);
            assertThat(after.after().get("id")).isEqualTo(4L);
            assertThat(after.shape()).isEqualTo(alter.shape());
        }
    }

    /** The older instance dropped before the stream reached the newer one's floor: its changes in between are gone. */
    @Test
    void anOlderInstanceDroppedBeforeTheStreamReachedTheNewerOneFails(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_early (id INT PRIMARY KEY)")) {
            db.execute("INSERT INTO s_early VALUES (1)");
            db.enableInstance("s_early", "dbo_s_early_v2");
            db.disableInstance("s_early", "dbo_s_early");
            assertThatThrownBy(() -> StreamTestSupport.events(stream, 1)).isInstanceOf(CdcException.class)
                    .hasMessageContaining("Capture instance 'dbo_s_early' (table dbo.s_early) was dropped while the "
                            + "stream was at")
                    .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST));
        }
    }

    /**
     * A transaction's changes share its id (the commit LSN), numbered from 1, with its commit time (read at the
     * server's offset, within the statements' run on the server's clock, to its 1/300 s ticks), and its end is
     * marked after its last change, before the next transaction's first.
     */
    @Test
    void changesCarryTheirTransactionAndCommitTimeAndEachTransactionEnds(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config()
                .serverTimeZone(db.serverTimeZone()).build(), "s_tx (id INT PRIMARY KEY, v INT NOT NULL)")) {
            Instant before = db.serverNow();
            db.execute("BEGIN TRAN; INSERT INTO s_tx VALUES (1, 1); INSERT INTO s_tx VALUES (2, 2); "
                    + "UPDATE s_tx SET v = 3 WHERE id = 1; COMMIT", "INSERT INTO s_tx VALUES (3, 3)");
            Instant after = db.serverNow();
            List<StreamRecord<SqlServerPosition>> records = new ArrayList<>(
                    StreamTestSupport.records(stream, 4, Duration.ofSeconds(120)));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!records.get(records.size() - 1).endsTransaction()) {
                assertThat(System.nanoTime()).as("the last transaction's end within 60 s").isLessThan(deadline);
                StreamRecord<SqlServerPosition> r = stream.poll(Duration.ofMillis(200));
                if (r != null) {
                    records.add(r);
                }
            }
            records.removeIf(r -> r.event() == null && !r.endsTransaction());
            assertThat(records).extracting(r -> r.endsTransaction() ? "end" : r.event().op().name())
                    .containsExactly("INSERT", "INSERT", "UPDATE", "end", "INSERT", "end");
            ChangeEvent first = records.get(0).event();
            Lsn commit = ((SqlServerPosition) first.source().position()).commitLsn();
            for (int i = 0; i < 3; i++) {
                ChangeEvent e = records.get(i).event();
                assertThat(e.transaction()).isEqualTo(TransactionInfo.of(commit.toString(), i + 1,
                        TransactionInfo.UNKNOWN));
                assertThat(e.source().commitTime()).isEqualTo(first.source().commitTime());
            }
            assertThat(records.get(3).position()).isEqualTo(SqlServerPosition.afterCommit(commit));
            ChangeEvent next = records.get(4).event();
            assertThat(next.transaction().id()).isNotEqualTo(commit.toString());
            assertThat(next.transaction().index()).isEqualTo(1);
            assertThat(records.get(5).position()).isEqualTo(SqlServerPosition.afterCommit(
                    ((SqlServerPosition) next.source().position()).commitLsn()));
            for (ChangeEvent e : List.of(first, next)) {
                assertThat(e.source().commitTime()).isBetween(before.minusMillis(5), after.plusMillis(5));
            }
            assertThat(next.source().commitTime()).isAfterOrEqualTo(first.source().commitTime());
            String mapped = db.queryValue("SELECT CONVERT(varchar(23), tran_end_time, 121) FROM cdc.lsn_time_mapping "
                    + "WHERE start_lsn = " + commit.literal());
            assertThat(first.source().commitTime()).isEqualTo(LocalDateTime.parse(mapped.replace(' ', 'T'))
                    .toInstant(ZoneOffset.of(db.serverTimeZone())));
        }
    }

    /** The capture job's gauges, sampled on their own thread, and the stream's counters. */
    @Test
    void reportsTheCaptureJobsLatencyAndTheWindowsRead(SqlServerDatabase db) throws Exception {
        Metrics metrics = new Metrics();
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().metricsInterval(Duration.ofSeconds(1))
                .build(), "s_metrics (id INT PRIMARY KEY)")) {
            stream.registerMetrics(metrics);
            db.execute("INSERT INTO s_metrics VALUES (1)");
            StreamTestSupport.events(stream, 1);
            Poll.until("the capture job's gauges", Duration.ofSeconds(60),
                    () -> gauge(metrics, "captureScanAgeSeconds") >= 0 && gauge(metrics, "captureLatencySeconds") >= 0);
            assertThat(gauge(metrics, "captureInstancesRead")).isEqualTo(1);
            assertThat(metrics.counters.get("windowsRead").getCount()).isPositive();
        }
    }

    private static long gauge(Metrics metrics, String name) {
        Gauge<?> g = metrics.gauges.get(name);
        return g == null ? -1 : ((Number) g.getValue()).longValue();
    }

    /** Keeps the counters and gauges registered, to read them. */
    private static final class Metrics extends UnregisteredMetricsGroup {
        final Map<String, Counter> counters = new ConcurrentHashMap<>();
        final Map<String, Gauge<?>> gauges = new ConcurrentHashMap<>();

        @Override
        public Counter counter(String name) {
            return counters.computeIfAbsent(name, n -> new SimpleCounter());
        }

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(name, gauge);
            return gauge;
        }
    }

    /** The cleanup job's low water mark raised past unread changes: the stream fails naming the instance. */
    @Test
    void changesPurgedBeforeTheyWereReadFailNamingTheCaptureInstance(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_purged (id INT PRIMARY KEY)")) {
            db.execute("INSERT INTO s_purged VALUES (1)", "INSERT INTO s_purged VALUES (2)");
            db.awaitValue("SELECT COUNT(*) FROM cdc.dbo_s_purged_CT", "2");
            db.execute("DECLARE @lsn binary(10) = sys.fn_cdc_get_max_lsn(); EXEC sys.sp_cdc_cleanup_change_table "
                    + "@capture_instance = N'dbo_s_purged', @low_water_mark = @lsn");
            assertThatThrownBy(() -> StreamTestSupport.events(stream, 1)).isInstanceOf(CdcException.class)
                    .hasMessageContaining("capture instance 'dbo_s_purged'")
                    .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST));
        }
    }

    /**
     * An update's old row holds a varchar(max)/nvarchar(max)/varbinary(max)/xml value only when the
     * update changed it, and never a text/ntext/image value: those are absent, never NULL.
     */
    @Test
    void largeValuesTheChangeTableDoesNotHoldAreAbsentNotNull(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_lob (id INT PRIMARY KEY, v INT NOT NULL, big NVARCHAR(MAX) NULL, old NTEXT NULL)")) {
            db.execute("INSERT INTO s_lob VALUES (1, 1, N'large', N'legacy')", "UPDATE s_lob SET v = 2 WHERE id = 1",
                    "UPDATE s_lob SET big = N'larger' WHERE id = 1", "DELETE FROM s_lob WHERE id = 1");
            List<ChangeEvent> events = StreamTestSupport.events(stream, 4);
            ChangeEvent unchanged = events.get(1);
            assertThat(unchanged.before().absentFields()).containsExactlyInAnyOrder("big", "old");
            assertThat(unchanged.after().get("big")).isEqualTo("large");
            ChangeEvent changed = events.get(2);
            assertThat(changed.before().get("big")).isEqualTo("large");
            assertThat(changed.before().absentFields()).containsExactly("old");
            assertThat(events.get(3).before().absentFields()).containsExactly("old");
            assertThat(events.get(3).before().get("big")).isEqualTo("larger");
        }
    }

    /** A key update (as deletes and inserts, or as updates: SQL Server decides) moves exactly the rows it moved. */
    @Test
    void aKeyUpdateMovesTheRows(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_key (id INT PRIMARY KEY, v INT NOT NULL)")) {
            db.execute("INSERT INTO s_key VALUES (1, 1), (2, 2)");
            StreamTestSupport.events(stream, 2);
            db.execute("UPDATE s_key SET id = id + 10", "INSERT INTO s_key VALUES (100, 0)");
            List<Long> removed = new ArrayList<>();
            List<Long> added = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!added.contains(100L)) {
                assertThat(System.nanoTime()).as("the marker row within 60 s").isLessThan(deadline);
                StreamRecord<SqlServerPosition> r = stream.poll(Duration.ofMillis(200));
                if (r != null && r.event() != null) {
                    if (r.event().before() != null) {
                        removed.add((Long) r.event().before().get("id"));
                    }
                    if (r.event().after() != null) {
                        added.add((Long) r.event().after().get("id"));
                    }
                }
            }
            assertThat(removed).containsExactlyInAnyOrder(1L, 2L);
            assertThat(added).containsExactlyInAnyOrder(11L, 12L, 100L);
        }
    }
}
