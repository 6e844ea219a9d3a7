package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.Poll;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * The source reports Flink's standard source metrics (records, and as {@code numBytesIn} exactly the
 * bytes {@code COPY} sent for the snapshot's rows, then the pgoutput messages' bytes), snapshot
 * progress, and the slot's lag, which grows while the sink is blocked and falls once it is released.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresMetricsITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    /** Holds each record while set (one JVM: the MiniCluster runs in the test's). */
    static volatile boolean blocked;

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    @Test
    void reportsRecordsLagSnapshotProgressAndSlot(PostgresDatabase db) throws Exception {
        Writers.createTables(db, 1000);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.builder(db).slotName("metrics")
                        .publicationName("metrics").createSlotIfMissing(true).createPublicationIfMissing(true)
                        .slotCheckInterval(Duration.ofSeconds(1)).build()))
                .includeTables("public.t1")
                .chunkSize(100)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg").map(new Gate()).sinkTo(new DiscardingSink<>());
        blocked = false;
        JobClient job = env.executeAsync();
        try {
            JobID id = job.getJobID();
            // 1000 rows in chunks of 100: ten full chunks and the open-ended last one
            Poll.until("the snapshot to be read", Duration.ofSeconds(60),
                    () -> value(id, "enumerator.snapshotChunksRead").map(v -> ((Number) v).intValue() == 11).orElse(false));
            assertThat(value(id, "enumerator.table.public.t1.chunksPlanned")).contains(11);
            assertThat(value(id, "enumerator.table.public.t1.chunksRead")).contains(11);
            assertThat(value(id, "enumerator.table.public.t1.planningComplete")).contains(1);
            assertThat(value(id, "enumerator.snapshotTablesBeingPlanned")).contains(0);
            // numBytesIn: the snapshot's rows as COPY sent them (nothing was written since, so nothing streamed), in
            // the binary format (every column's type has a binary decoder), whose header and end (19 and 2 bytes)
            // each of the 11 chunks sent: 10 more times than one COPY of the table
            long copied = copyBytes(db, "COPY (SELECT id, v, n FROM public.t1) TO STDOUT (FORMAT binary)") + 10 * (19 + 2);
            Poll.until("numBytesIn to be the " + copied + " bytes COPY sent", Duration.ofSeconds(30),
                    () -> sum(id, "numBytesIn") == copied);
            db.execute("INSERT INTO t1 VALUES (100001, 'x', 1)");
            Poll.until("records in", Duration.ofSeconds(60), () -> sum(id, "numRecordsIn") >= 1001);
            // then the pgoutput messages: at least the transaction's BEGIN (21 bytes) and COMMIT (26)
            Poll.until("numBytesIn to count the streamed transaction", Duration.ofSeconds(30),
                    () -> sum(id, "numBytesIn") >= copied + 21 + 26);
            assertThat(sum(id, "numRecordsInErrors")).as("no record is skipped").isZero();
            assertThat(REPORTER.getMetricsByIdentifiers(id).keySet()).as("pendingRecords: not known, not registered")
                    .noneMatch(k -> k.endsWith(".pendingRecords"));
            Poll.until("the fetch lag", Duration.ofSeconds(60), () -> true
                    && value(id, "currentFetchEventTimeLag").map(v -> ((Number) v).longValue() >= 0).orElse(false));
            Poll.until("the slot gauges", Duration.ofSeconds(60),
                    () -> value(id, "postgres.slotWalStatus").map(v -> v.equals("reserved")).orElse(false)
                            && value(id, "postgres.slotLagBytes").map(v -> ((Number) v).longValue() >= 0).orElse(false));
            // the numeric gauges, for reporters that drop String gauges: a healthy slot is reserved
            assertThat(anyValue(id, "postgres.slotWalStatusCode")).contains(0);
            assertThat(anyValue(id, "postgres.slotWalStatusReserved")).contains(1);
            assertThat(anyValue(id, "postgres.slotWalStatusExtended")).contains(0);
            assertThat(anyValue(id, "postgres.slotWalStatusUnreserved")).contains(0);
            assertThat(anyValue(id, "postgres.slotWalStatusLost")).contains(0);
            long safe = ((Number) anyValue(id, "postgres.slotSafeWalSizeBytes").orElseThrow()).longValue();
            if (db.queryValue("SHOW max_slot_wal_keep_size").equals("-1")) {
                assertThat(safe).as("safe_wal_size is NULL without max_slot_wal_keep_size").isEqualTo(-1);
                // with a cap, safe_wal_size is a number: the next samples report it
                try {
                    db.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1GB'", "SELECT pg_reload_conf()");
                    // sampled every second (slot.check-interval), not every 10 s as by default
                    Poll.until("safe_wal_size under max_slot_wal_keep_size", Duration.ofSeconds(5),
                            () -> anyValue(id, "postgres.slotSafeWalSizeBytes")
                                    .map(v -> ((Number) v).longValue() >= 0).orElse(false));
                    assertThat(anyValue(id, "postgres.slotWalStatusCode")).contains(0);
                    System.out.printf("slotSafeWalSizeBytes: -1 without a cap, %s with 1GB%n",
                            anyValue(id, "postgres.slotSafeWalSizeBytes").orElseThrow());
                } finally {
                    db.execute("ALTER SYSTEM RESET max_slot_wal_keep_size", "SELECT pg_reload_conf()");
                }
            } else {
                System.out.printf("slotSafeWalSizeBytes: %d (max_slot_wal_keep_size set)%n", safe);
                assertThat(safe).as("safe_wal_size under max_slot_wal_keep_size").isNotNegative();
            }

            // a blocked sink holds the checkpoints, so nothing is confirmed: the slot's lag grows with the writes
            Poll.until("the slot's lag at rest", Duration.ofSeconds(30),
                    () -> ((Number) anyValue(id, "postgres.slotLagBytes").orElseThrow()).longValue() < 1_000_000);
            long atRest = ((Number) anyValue(id, "postgres.slotLagBytes").orElseThrow()).longValue();
            blocked = true;
            for (int i = 0; i < 10; i++) {
                db.execute("INSERT INTO t1 SELECT g, 'blocked', g FROM generate_series(" + (200_000 + i * 2000) + ", "
                        + (200_000 + i * 2000 + 1999) + ") g");
            }
            Poll.until("the slot's lag to grow while the sink is blocked", Duration.ofSeconds(30),
                    () -> ((Number) anyValue(id, "postgres.slotLagBytes").orElseThrow()).longValue() > atRest + 500_000);
            long blockedLag = ((Number) anyValue(id, "postgres.slotLagBytes").orElseThrow()).longValue();
            blocked = false;
            Poll.until("the slot's lag to fall once the sink is released", Duration.ofSeconds(60),
                    () -> ((Number) anyValue(id, "postgres.slotLagBytes").orElseThrow()).longValue() < blockedLag / 2);
            System.out.printf("slotLagBytes: %d at rest, %d with the sink blocked, %s released%n", atRest, blockedLag,
                    anyValue(id, "postgres.slotLagBytes").orElseThrow());
        } finally {
            blocked = false;
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /** The bytes {@code copy} sends: each CopyData message's. */
    private static long copyBytes(PostgresDatabase db, String copy) throws Exception {
        try (Connection c = db.admin()) {
            CopyOut out = c.unwrap(PGConnection.class).getCopyAPI().copyOut(copy);
            long bytes = 0;
            for (byte[] row = out.readFromCopy(); row != null; row = out.readFromCopy()) {
                bytes += row.length;
            }
            return bytes;
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

    /** The first gauge of the job whose name ends with {@code suffix}. */
    private static Optional<Object> value(JobID job, String suffix) {
        for (Map.Entry<String, Metric> e : REPORTER.getMetricsByIdentifiers(job).entrySet()) {
            if (e.getKey().endsWith("." + suffix) && e.getValue() instanceof Gauge) {
                Object v = ((Gauge<?>) e.getValue()).getValue();
                if (v != null && !(v instanceof Number && ((Number) v).longValue() < 0)) {
                    return Optional.of(v);
                }
            }
        }
        return Optional.empty();
    }

    /** The gauge of the subtask that streams (the one whose String slotWalStatus is set), negative values too. */
    private static Optional<Object> anyValue(JobID job, String suffix) {
        String streaming = null;
        for (Map.Entry<String, Metric> e : REPORTER.getMetricsByIdentifiers(job).entrySet()) {
            if (e.getKey().endsWith(".postgres.slotWalStatus") && e.getValue() instanceof Gauge
                    && "reserved".equals(((Gauge<?>) e.getValue()).getValue())) {
                streaming = e.getKey().substring(0, e.getKey().length() - "slotWalStatus".length());
            }
        }
        if (streaming == null) {
            return Optional.empty();
        }
        String name = streaming + suffix.substring("postgres.".length());
        Metric m = REPORTER.getMetricsByIdentifiers(job).get(name);
        return m instanceof Gauge ? Optional.ofNullable(((Gauge<?>) m).getValue()) : Optional.empty();
    }

    private static long sum(JobID job, String suffix) {
        long total = 0;
        for (Map.Entry<String, Metric> e : REPORTER.getMetricsByIdentifiers(job).entrySet()) {
            if (e.getKey().matches(".*\\.Source: pg\\.\\d+\\." + suffix) && e.getValue() instanceof Counter) {
                total += ((Counter) e.getValue()).getCount();
            }
        }
        return total;
    }
}
