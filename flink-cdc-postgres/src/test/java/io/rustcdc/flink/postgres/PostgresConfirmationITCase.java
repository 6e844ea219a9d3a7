package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.compat.TestSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The slot's confirmed position follows completed checkpoints only; a gap is a loud failure. */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresConfirmationITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    static final AtomicInteger RECEIVED = new AtomicInteger();

    @Test
    void nothingIsConfirmedWithoutCheckpointsAndAnIdleSlotAdvancesWithThem(PostgresDatabase db) throws Exception {
        db.execute("CREATE TABLE t (id int PRIMARY KEY)", "ALTER TABLE t OWNER TO " + db.replicationUser());
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = source(db, "confirm_slot");
        RECEIVED.set(0);
        JobClient unchecked = start(source, 0, null);
        Poll.until("the slot", Duration.ofSeconds(60), () -> slotLsn(db, "confirm_slot") != null);
        Lsn created = slotLsn(db, "confirm_slot");
        db.execute("INSERT INTO t SELECT g FROM generate_series(1, 100) g");
        Poll.until("the inserts", Duration.ofSeconds(60), () -> RECEIVED.get() >= 100);
        Thread.sleep(1500); // several status intervals would have passed
        assertThat(slotLsn(db, "confirm_slot")).as("no checkpoint, nothing confirmed").isEqualTo(created);
        unchecked.cancel().get(30, TimeUnit.SECONDS);
        awaitSlotInactive(db, "confirm_slot");

        JobClient checked = start(source, 200, null);
        try {
            // no captured change from here on: only other WAL moves
            Poll.until("an idle slot to advance", Duration.ofSeconds(90), () -> {
                db.execute("CREATE TABLE IF NOT EXISTS unpublished (id int)", "INSERT INTO unpublished VALUES (1)");
                return slotLsn(db, "confirm_slot").isAfter(created);
            });
        } finally {
            checked.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void restoringFromAPositionTheSlotHasPassedFailsLoud(PostgresDatabase db, @InjectClusterClient ClusterClient<?> client,
            @TempDir Path savepoints) throws Exception {
        db.execute("CREATE TABLE u (id int PRIMARY KEY)", "ALTER TABLE u OWNER TO " + db.replicationUser());
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = source(db, "gap_slot");
        RECEIVED.set(0);
        JobClient first = start(source, 200, null);
        db.execute("INSERT INTO u VALUES (1)");
        Poll.until("the first row", Duration.ofSeconds(60), () -> RECEIVED.get() >= 1);
        String savepoint = client.stopWithSavepoint(first.getJobID(), false, savepoints.toUri().toString(),
                SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);
        awaitSlotInactive(db, "gap_slot");
        Lsn atSavepoint = slotLsn(db, "gap_slot");

        JobClient second = start(source, 200, savepoint);
        db.execute("INSERT INTO u SELECT g FROM generate_series(2, 50) g");
        Poll.until("the slot to confirm past the savepoint", Duration.ofSeconds(60),
                () -> slotLsn(db, "gap_slot").isAfter(atSavepoint));
        second.cancel().get(30, TimeUnit.SECONDS);
        awaitSlotInactive(db, "gap_slot");

        JobClient third = start(source, 200, savepoint);
        ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> third.getJobExecutionResult().get(120, TimeUnit.SECONDS));
        assertThat(ExceptionUtils.stringifyException(failure))
                .contains("has already confirmed position")
                .contains("older checkpoint or savepoint");
    }

    private static CdcSource<String, PostgresPosition, PostgresChunkMark> source(PostgresDatabase db, String slot) {
        return CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, slot)))
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    private static JobClient start(CdcSource<String, PostgresPosition, PostgresChunkMark> source, long checkpointMillis,
            String savepoint) throws Exception {
        StreamExecutionEnvironment env = env(checkpointMillis, savepoint);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg").sinkTo(new CountingSink());
        return env.executeAsync();
    }

    private static StreamExecutionEnvironment env(long checkpointMillis, String savepoint) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        if (checkpointMillis > 0) {
            env.enableCheckpointing(checkpointMillis);
        }
        return env;
    }

    private static Lsn slotLsn(PostgresDatabase db, String slot) {
        var values = db.queryColumn("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
                + slot + "'");
        return values.isEmpty() || values.get(0) == null ? null : Lsn.valueOf(values.get(0));
    }

    private static void awaitSlotInactive(PostgresDatabase db, String slot) {
        Poll.until("slot " + slot + " to be released", Duration.ofSeconds(60), () -> "f".equals(db.queryValue(
                "SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'")));
    }

    /** Counts what arrives; nothing else. */
    static final class CountingSink extends TestSink<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<String> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(String element, Context context) {
                    RECEIVED.incrementAndGet();
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
