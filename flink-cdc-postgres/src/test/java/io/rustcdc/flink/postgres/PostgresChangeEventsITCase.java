package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.serde.ChangeEventTypeInfo;
import io.rustcdc.flink.testing.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job of {@link ChangeEventDeserializer#events()} with Kryo switched off: every event crosses the
 * network twice (a rebalance, then a keyBy) in the source's own type, and arrives equal to the event
 * the source emitted, snapshot rows and stream changes of every value kind alike.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresChangeEventsITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    /** The events as the source emitted them, before any serializer (one JVM: the MiniCluster runs in the test's). */
    static final Queue<ChangeEvent> SENT = new ConcurrentLinkedQueue<>();
    /** The events after two network exchanges. */
    static final Queue<ChangeEvent> RECEIVED = new ConcurrentLinkedQueue<>();

    private static final String COLUMNS = "id bigint PRIMARY KEY, n numeric(20,4), nn numeric, f real, d double precision,"
            + " txt text, big text, b bytea, day date, t time(6), ts timestamp(3), tstz timestamptz, u uuid, arr int[],"
            + " j jsonb";

    @Test
    void eventsCrossTheNetworkExactlyWithoutKryo(PostgresDatabase db) throws Exception {
        String big = "y".repeat(50_000) + "end";
        db.execute("CREATE TABLE kinds (" + COLUMNS + ")", "ALTER TABLE kinds OWNER TO " + db.replicationUser(),
                "ALTER TABLE kinds ALTER COLUMN big SET STORAGE EXTERNAL",
                "INSERT INTO kinds VALUES (1, 12345678901234.5678, 'NaN', 'NaN', '-Infinity', 'h\u00e9llo \uD83D\uDE00',"
                        + " '" + big + "', '\\x00ff07', '2024-02-29', '24:00:00', '2024-02-29 23:59:59.999',"
                        + " '1970-01-01 00:00:00.000001+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',"
                        + " '{{1,2},{3,NULL}}', '{\"a\": [1, 2.50]}')",
                "INSERT INTO kinds (id, nn, day, ts, tstz) VALUES (2, '-Infinity', 'infinity', '-infinity', 'infinity')",
                "INSERT INTO kinds (id) VALUES (3)");
        CdcSource<ChangeEvent, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "events")))
                .includeTables("public.kinds")
                .chunkSize(2)
                .deserializer(ChangeEventDeserializer.events())
                .build();
        assertThat(source.getProducedType()).isEqualTo(ChangeEventTypeInfo.of(PostgresConnector.create(
                PostgresTestConfigs.streaming(db, "events")).positionSerializer()));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        env.configure(new Configuration().set(PipelineOptions.GENERIC_TYPES, false)); // no Kryo
        assertThatThrownBy(() -> TypeInformation.of(ChangeEvent.class).createSerializer(env.getConfig().getSerializerConfig()))
                .as("Kryo is off: a ChangeEvent typed by its class alone would fail")
                .isInstanceOf(UnsupportedOperationException.class);
        SENT.clear();
        RECEIVED.clear();
        TypeInformation<ChangeEvent> type = source.getProducedType();
        try (CloseableIterator<Long> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg")
                .map(new Sent()).returns(type)
                .rebalance()
                .map(e -> e).returns(type)
                .keyBy(e -> e.table().qualifiedName())
                .map(new Received()).returns(Long.class)
                .executeAndCollect()) {
            Poll.until("the snapshot", Duration.ofSeconds(60), () -> RECEIVED.size() >= 3);
            db.execute("INSERT INTO kinds (id, n, f, d, txt) VALUES (4, -0.0001, '-0', 'Infinity', 'x')",
                    "UPDATE kinds SET txt = 'changed' WHERE id = 1", // big unchanged: not supplied (TOAST)
                    "DELETE FROM kinds WHERE id = 3",
                    "ALTER TABLE kinds ADD COLUMN extra int",
                    "INSERT INTO kinds (id, extra) VALUES (5, 7)");
            Poll.until("the last insert", Duration.ofSeconds(60), () -> RECEIVED.stream().anyMatch(
                    e -> e.op() == Op.INSERT && Long.valueOf(5).equals(e.after().get("id"))));
            Poll.until("every event sent to arrive", Duration.ofSeconds(30), () -> RECEIVED.size() == SENT.size());
        }

        assertThat(List.copyOf(RECEIVED)).containsExactlyInAnyOrderElementsOf(List.copyOf(SENT));
        assertThat(RECEIVED).as("deserialized copies, not the emitted instances")
                .noneMatch(r -> SENT.stream().anyMatch(s -> s == r));
        assertThat(RECEIVED.stream().map(e -> e.op().wireName()).collect(Collectors.toSet()))
                .contains("read", "insert", "update", "delete", "schema_change");
        ChangeEvent update = only(Op.UPDATE);
        assertThat(update.unchangedColumns()).containsExactly("big");
        assertThat(update.source().position()).isInstanceOf(PostgresPosition.class);
        assertThat(update.source().commitTime()).isNotNull();
        assertThat(update.transaction()).isNotNull();
        ChangeEvent special = RECEIVED.stream().filter(e -> e.op() == Op.READ && Long.valueOf(2).equals(e.after().get("id")))
                .findFirst().orElseThrow();
        assertThat(special.after().get("nn")).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(special.after().get("day")).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(only(Op.SCHEMA_CHANGE).shapeChanges()).isNotEmpty();
    }

    private static ChangeEvent only(Op op) {
        List<ChangeEvent> events = RECEIVED.stream().filter(e -> e.op() == op).collect(Collectors.toList());
        assertThat(events).hasSize(1);
        return events.get(0);
    }

    /** Chained to the source: sees the emitted instances, before any serializer. */
    private static final class Sent implements MapFunction<ChangeEvent, ChangeEvent> {
        @Override
        public ChangeEvent map(ChangeEvent e) {
            SENT.add(e);
            return e;
        }
    }

    private static final class Received implements MapFunction<ChangeEvent, Long> {
        @Override
        public Long map(ChangeEvent e) {
            RECEIVED.add(e);
            return 1L;
        }
    }
}
