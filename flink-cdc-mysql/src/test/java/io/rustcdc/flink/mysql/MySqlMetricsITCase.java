package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The binlog gauges of MySQL/MariaDB's streaming subtask (sampled every second here), with Flink's
 * {@code numBytesIn}, in an in-memory reporter: at the binlog's end the lag is 0 and the position is
 * the server's; writes move the position and count their events' bytes; while the sink is blocked the
 * lag in seconds, bytes and GTIDs grows as the server writes on; once it is released they fall to 0.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlMetricsITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(1).build());

    /** Holds each record while set (one JVM: the MiniCluster runs in the test's). */
    static volatile boolean blocked;

    @Test
    void binlogGaugesFollowTheStreamAndGrowWhileTheSinkIsBlocked(MySqlDatabase db) throws Exception {
        StringBuilder rows = new StringBuilder("INSERT INTO t VALUES (1, 1)");
        for (int i = 2; i <= 200; i++) {
            rows.append(", (").append(i).append(", ").append(i).append(')');
        }
        db.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, n INT NOT NULL)", rows.toString());
        MySqlSourceConfig config = MySqlTestConfigs.builder(db).binlogCheckInterval(Duration.ofSeconds(1)).build();
        String group = MySqlConnector.create(config).name(); // mysql or mariadb
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(config))
                .includeTables(db.name() + ".t")
                .chunkSize(50)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(500);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "binlog").map(new Gate())
                .sinkTo(new DiscardingSink<>());
        blocked = false;
        JobClient job = env.executeAsync();
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            JobID id = job.getJobID();
            Poll.until("the stream at the binlog's end", Duration.ofSeconds(60), () -> caughtUp(id, group, db));
            long bytesBefore = sum(id, "numBytesIn");
            List<String> endBefore = db.binlogStatus();
            for (int i = 0; i < 20; i++) {
                db.execute("UPDATE t SET n = n + 1 WHERE id = " + (1 + i));
            }
            List<String> endAfter = db.binlogStatus();
            Poll.until("the position at the writes' end", Duration.ofSeconds(60),
                    () -> reached(id, group, endAfter));
            long sent = sentBytes(db, endBefore, endAfter);
            Poll.until("numBytesIn to count the writes' events", Duration.ofSeconds(30),
                    () -> sum(id, "numBytesIn") - bytesBefore >= sent);
            System.out.printf("%s: the server sent %d bytes of binlog events, numBytesIn grew by %d%n", group, sent,
                    sum(id, "numBytesIn") - bytesBefore);

            blocked = true;
            AtomicInteger writes = new AtomicInteger();
            Thread writer = new Thread(() -> {
                while (writing.get()) {
                    db.execute("UPDATE t SET n = n + 1 WHERE id = " + (1 + writes.getAndIncrement() % 200));
                    sleep(100);
                }
            }, "metrics-writer");
            writer.start();
            Poll.until("the lag to grow while the sink is blocked", Duration.ofSeconds(60),
                    () -> gauge(id, group + ".binlogLagSeconds") >= 3 && gauge(id, group + ".binlogLagBytes") > 0
                            && gauge(id, group + ".gtidsBehind") > 0
                            && gauge(id, group + ".binlogPosition") < gauge(id, group + ".binlogServerPosition"));
            System.out.printf("%s, blocked after %d writes: lag %d s, %d bytes, %d GTIDs%n", group, writes.get(),
                    gauge(id, group + ".binlogLagSeconds"), gauge(id, group + ".binlogLagBytes"),
                    gauge(id, group + ".gtidsBehind"));
            writing.set(false);
            writer.join();
            blocked = false;
            Poll.until("the stream back at the binlog's end", Duration.ofSeconds(60), () -> caughtUp(id, group, db));

            assertThat(sum(id, "numRecordsInErrors")).as("no record is skipped").isZero();
            assertThat(REPORTER.getMetricsByIdentifiers(id).keySet()).as("pendingRecords: not known, not registered")
                    .noneMatch(k -> k.endsWith(".pendingRecords"));
        } finally {
            writing.set(false);
            blocked = false;
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The bytes of the binlog events between two ends of the binlog in one file that the server sends a
     * binlog client: all but MariaDB's {@code Annotate_rows} (the statement of row events), which it
     * sends only to a client that asks for them.
     */
    private static long sentBytes(MySqlDatabase db, List<String> from, List<String> to) {
        assertThat(to.get(0)).as("the writes in one binlog file").isEqualTo(from.get(0));
        long sent = 0;
        long end = Long.parseLong(to.get(1));
        // an event's length is where the next starts (MariaDB gives the events inside a transaction no end)
        List<List<String>> events = db.query("SHOW BINLOG EVENTS IN '" + from.get(0) + "' FROM " + from.get(1));
        for (int i = 0; i < events.size(); i++) {
            long pos = Long.parseLong(events.get(i).get(1));
            long next = i + 1 < events.size() ? Long.parseLong(events.get(i + 1).get(1))
                    : Long.parseLong(events.get(i).get(4));
            if (pos < end && !events.get(i).get(2).equalsIgnoreCase("Annotate_rows")) {
                sent += next - pos;
            }
        }
        assertThat(sent).isPositive();
        return sent;
    }

    /** The lag gauges at 0 and the stream's position the server's end, as the server says now. */
    private static boolean caughtUp(JobID id, String group, MySqlDatabase db) {
        return gauge(id, group + ".binlogLagBytes") == 0 && gauge(id, group + ".binlogLagSeconds") == 0
                && gauge(id, group + ".gtidsBehind") == 0 && reached(id, group, db.binlogStatus());
    }

    /** The stream's position (and the last sample's end) at or past {@code end}, as {@code [file, offset]}. */
    private static boolean reached(JobID id, String group, List<String> end) {
        long file = MySqlPosition.fileNumber(end.get(0));
        long offset = Long.parseLong(end.get(1));
        return gauge(id, group + ".binlogFileIndex") == file && gauge(id, group + ".binlogPosition") >= offset
                && gauge(id, group + ".binlogServerFileIndex") == file && gauge(id, group + ".binlogServerPosition") >= offset;
    }

    /** The source's gauge whose name ends with {@code suffix}; {@link Long#MIN_VALUE} when there is none yet. */
    private static long gauge(JobID job, String suffix) {
        for (Map.Entry<String, Metric> e : REPORTER.getMetricsByIdentifiers(job).entrySet()) {
            if (e.getKey().endsWith("." + suffix) && e.getValue() instanceof Gauge<?> g && g.getValue() != null) {
                return ((Number) g.getValue()).longValue();
            }
        }
        return Long.MIN_VALUE;
    }

    private static long sum(JobID job, String name) {
        long total = 0;
        for (Map.Entry<String, Metric> e : REPORTER.getMetricsByIdentifiers(job).entrySet()) {
            if (e.getKey().matches(".*\\.Source: binlog\\.\\d+\\." + name) && e.getValue() instanceof Counter c) {
                total += c.getCount();
            }
        }
        return total;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Passes records on, holding each while {@link #blocked} is set. */
    static final class Gate implements MapFunction<String, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(String value) throws Exception {
            while (blocked) {
                Thread.sleep(10);
            }
            return value;
        }
    }
}
