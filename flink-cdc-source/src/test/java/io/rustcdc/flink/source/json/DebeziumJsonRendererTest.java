package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.serde.RandomChangeEvents;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DebeziumJsonRendererTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2024-03-30T23:30:01.123Z");
    private static final DebeziumJsonRenderer RENDERER =
            DebeziumJsonRenderer.withClock(Clock.fixed(NOW, ZoneOffset.UTC));
    private static final SourcePosition LSN = new SourcePosition() {
        @Override
        public String toString() {
            return "0/16B3748";
        }
    };
    private static final Map<Op, String> OPS = Map.of(Op.READ, "r", Op.INSERT, "c", Op.UPDATE, "u", Op.DELETE, "d",
            Op.TRUNCATE, "t", Op.MESSAGE, "m");

    @Test
    void anUpdateInDebeziumsEnvelope() {
        RowType type = RowType.of(List.of("id", "amount", "note"), List.of(ValueType.of(ValueKind.BIGINT),
                ValueType.of(ValueKind.DECIMAL), ValueType.of(ValueKind.TEXT)));
        Row after = Row.builder(type).set(0, 9L).set(1, new BigDecimal("13.0000")).build(); // note not sent
        ChangeEvent update = ChangeEvent.builder(Op.UPDATE, TableId.of("shop", "public", "orders"),
                        SourceInfo.stream("postgres", LSN, Instant.parse("2024-03-30T23:30:00Z")))
                .before(Row.of(type, 9L, new BigDecimal("12.5000"), "old")).after(after)
                .transaction(TransactionInfo.of("768", 2, 5)).build();

        assertThat(RENDERER.render(update)).isEqualTo("{\"before\":{\"id\":\"9\",\"amount\":\"12.5000\",\"note\":\"old\"},"
                + "\"after\":{\"id\":\"9\",\"amount\":\"13.0000\",\"note\":\"__debezium_unavailable_value\"},"
                + "\"source\":{\"version\":\"rustcdc\",\"connector\":\"postgres\",\"name\":\"shop\","
                + "\"ts_ms\":1711841400000,\"ts_us\":1711841400000000,\"ts_ns\":1711841400000000000,"
                + "\"snapshot\":\"false\",\"db\":\"shop\",\"schema\":\"public\","
                + "\"table\":\"orders\",\"position\":\"0/16B3748\"},\"op\":\"u\",\"ts_ms\":1711841401123,"
                + "\"transaction\":{\"id\":\"768\",\"total_order\":2,\"data_collection_order\":2}}");
    }

    @Test
    void aSnapshotRowAndASchemaChange() throws IOException {
        RowType type = RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.INTEGER)));
        TableId table = TableId.of("shop", "shop", "t");
        JsonNode read = MAPPER.readTree(RENDERER.render(ChangeEvent.builder(Op.READ, table,
                SourceInfo.snapshot("mysql", null)).after(Row.of(type, 1L)).build()));
        assertThat(read.get("op").asText()).isEqualTo("r");
        assertThat(read.get("before").isNull()).isTrue();
        assertThat(read.get("source").get("snapshot").asText()).isEqualTo("true");
        assertThat(read.get("source").get("ts_ms").asLong()).isZero();
        assertThat(read.get("source").has("position")).isFalse();
        assertThat(read.get("transaction").isNull()).isTrue();
        assertThat(RENDERER.render(ChangeEvent.builder(Op.SCHEMA_CHANGE, table, SourceInfo.snapshot("mysql", null))
                .build())).isNull();
    }

    /**
     * Random events of every value kind and edge: each row in the envelope holds exactly the values the
     * native JSON writes (an absent field as the placeholder), and the envelope's fields follow the event.
     * Replay: -Drustcdc.debezium.seed=N.
     */
    @Test
    void randomEventsCarryTheNativeValues() throws IOException {
        long seed = Long.getLong("rustcdc.debezium.seed", System.nanoTime());
        System.out.println("DebeziumJsonRendererTest seed " + seed + " (replay with -Drustcdc.debezium.seed=" + seed + ")");
        RandomChangeEvents events = new RandomChangeEvents(new Random(seed), true);
        JsonRenderer nativeJson = JsonRenderer.create();
        int compared = 0;
        for (int i = 0; i < 2000; i++) {
            ChangeEvent event = events.event();
            String context = "seed " + seed + " event " + i + ": " + event;
            if (event.op() == Op.SCHEMA_CHANGE) {
                assertThat(RENDERER.render(event)).as(context).isNull();
                continue;
            }
            String rendered;
            try {
                rendered = RENDERER.render(event);
            } catch (RuntimeException e) { // a value no JSON can hold (a lone surrogate): native JSON refuses it too
                assertThatThrownBy(() -> nativeJson.renderToString(event)).as(context + ": " + e)
                        .isInstanceOf(RuntimeException.class);
                continue;
            }
            JsonNode d = MAPPER.readTree(rendered);
            assertThat(d.get("op").asText()).as(context).isEqualTo(OPS.get(event.op()));
            assertThat(d.get("ts_ms").asLong()).as(context).isEqualTo(NOW.toEpochMilli());
            JsonNode source = d.get("source");
            Instant commit = event.source().commitTime() == null ? Instant.EPOCH : event.source().commitTime();
            assertThat(source.get("ts_ms").bigIntegerValue()).as(context).isEqualTo(exactly(commit)
                    .movePointRight(3).setScale(0, RoundingMode.FLOOR).toBigIntegerExact());
            assertThat(source.get("ts_us").bigIntegerValue()).as(context).isEqualTo(exactly(commit)
                    .movePointRight(6).setScale(0, RoundingMode.FLOOR).toBigIntegerExact());
            assertThat(source.get("ts_ns").bigIntegerValue()).as(context)
                    .isEqualTo(exactly(commit).movePointRight(9).toBigIntegerExact());
            assertThat(source.get("snapshot").asText()).as(context).isEqualTo(Boolean.toString(event.source().snapshot()));
            assertThat(source.get("table").asText()).as(context).isEqualTo(event.table().table());
            assertThat(d.get("transaction").isNull()).as(context).isEqualTo(event.transaction() == null);
            if (event.transaction() != null) {
                assertThat(d.get("transaction").get("id").asText()).as(context).isEqualTo(event.transaction().id());
            }
            JsonNode n;
            try {
                n = MAPPER.readTree(nativeJson.renderToString(event));
            } catch (RuntimeException e) { // a commit time past year 999999999, which only the envelope's numbers hold
                continue;
            }
            if (event.op() == Op.MESSAGE) {
                assertThat(d.get("message")).as(context).isEqualTo(withPlaceholders(n.get("after"), event.after()));
            } else if (event.op() == Op.TRUNCATE) {
                assertThat(d.get("before").isNull() && d.get("after").isNull()).as(context).isTrue();
            } else {
                assertThat(d.get("before")).as(context).isEqualTo(withPlaceholders(n.get("before"), event.before()));
                assertThat(d.get("after")).as(context).isEqualTo(withPlaceholders(n.get("after"), event.after()));
                compared++;
            }
        }
        assertThat(compared).as("events whose rows were compared").isGreaterThan(500);
    }

    /**
     * The source's ts_ms, ts_us and ts_ns are exact, rounded down, for commit times on both sides of where each
     * stops fitting a long, and around the epoch. Replay: -Drustcdc.debezium.seed=N.
     */
    @Test
    void commitTimesInEveryUnitAroundTheLongsEnds() throws IOException {
        long seed = Long.getLong("rustcdc.debezium.seed", System.nanoTime());
        System.out.println("DebeziumJsonRendererTest ends seed " + seed + " (replay with -Drustcdc.debezium.seed=" + seed
                + ")");
        Random random = new Random(seed);
        RowType type = RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.INTEGER)));
        for (int i = 0; i < 3000; i++) {
            long perSecond = new long[] {1_000, 1_000_000, 1_000_000_000}[random.nextInt(3)];
            long end = (random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE) / perSecond;
            long seconds = i % 3 == 0 ? random.nextInt(200_000) - 100_000 : end + random.nextInt(7) - 3;
            Instant commit = Instant.ofEpochSecond(seconds, random.nextInt(1_000_000_000));
            ChangeEvent e = ChangeEvent.builder(Op.INSERT, TableId.of("shop", "public", "t"),
                    SourceInfo.stream("postgres", LSN, commit)).after(Row.of(type, 1L)).build();
            JsonNode source = MAPPER.readTree(RENDERER.render(e)).get("source");
            for (String unit : List.of("ts_ms", "ts_us", "ts_ns")) {
                int digits = unit.equals("ts_ms") ? 3 : unit.equals("ts_us") ? 6 : 9;
                assertThat(source.get(unit).bigIntegerValue()).as("seed " + seed + ": " + commit + " " + unit)
                        .isEqualTo(exactly(commit).movePointRight(digits).setScale(0, RoundingMode.FLOOR)
                                .toBigIntegerExact());
            }
        }
    }

    private static BigDecimal exactly(Instant t) {
        return BigDecimal.valueOf(t.getEpochSecond()).add(BigDecimal.valueOf(t.getNano(), 9));
    }

    /** The native rendering of {@code row} with each absent field as the placeholder, in the row's order. */
    private static JsonNode withPlaceholders(JsonNode nativeRow, Row row) {
        if (row == null) {
            return MAPPER.nullNode();
        }
        ObjectNode expected = MAPPER.createObjectNode();
        for (int i = 0; i < row.size(); i++) {
            String name = row.type().name(i);
            expected.set(name, row.isPresent(i) ? nativeRow.get(name)
                    : MAPPER.getNodeFactory().textNode(DebeziumJsonRenderer.UNAVAILABLE));
        }
        return expected;
    }
}
