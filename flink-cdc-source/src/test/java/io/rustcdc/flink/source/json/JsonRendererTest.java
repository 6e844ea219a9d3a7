package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JsonRendererTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TableId ORDERS = TableId.of("shop", "public", "orders");
    private static final SourcePosition LSN = new SourcePosition() {
        @Override
        public String toString() {
            return "0/16B3748";
        }
    };
    private static final SourceInfo STREAM = SourceInfo.stream("postgres", LSN, Instant.parse("2024-03-30T23:30:00Z"));

    @Test
    void integersAreNumbersAndWideIntegersStringsByDefault() throws IOException {
        assertThat(render(ValueType.of(ValueKind.INTEGER), 2147483647L)).isEqualTo("2147483647");
        assertThat(render(ValueType.of(ValueKind.INTEGER), 4294967295L)).isEqualTo("4294967295");
        assertThat(render(ValueType.of(ValueKind.BIGINT), Long.MIN_VALUE)).isEqualTo("\"-9223372036854775808\"");
        assertThat(render(ValueType.of(ValueKind.UNSIGNED_BIGINT), new BigInteger("18446744073709551615")))
                .isEqualTo("\"18446744073709551615\"");
    }

    @Test
    void wideIntegersAsNumbersWhenAsked() throws IOException {
        JsonRenderer numbers = JsonRenderer.builder().wideIntegers(WideIntegers.NUMBER).build();
        assertThat(render(numbers, ValueType.of(ValueKind.BIGINT), 9007199254740993L)).isEqualTo("9007199254740993");
        assertThat(render(numbers, ValueType.of(ValueKind.UNSIGNED_BIGINT), new BigInteger("18446744073709551615")))
                .isEqualTo("18446744073709551615");
    }

    @Test
    void decimalsKeepTheirScaleAndSpecials() throws IOException {
        ValueType decimal = ValueType.of(ValueKind.DECIMAL);
        assertThat(render(decimal, new BigDecimal("12.5000"))).isEqualTo("\"12.5000\"");
        assertThat(render(decimal, new BigDecimal("1E+30").setScale(0))).isEqualTo("\"1000000000000000000000000000000\"");
        assertThat(render(decimal, new BigDecimal("-0.000000000000000000000000000001")))
                .isEqualTo("\"-0.000000000000000000000000000001\"");
        assertThat(render(decimal, SpecialValue.NAN)).isEqualTo("\"NaN\"");
        assertThat(render(decimal, SpecialValue.POSITIVE_INFINITY)).isEqualTo("\"Infinity\"");
        assertThat(render(decimal, SpecialValue.NEGATIVE_INFINITY)).isEqualTo("\"-Infinity\"");
    }

    @Test
    void floatsUseShortestExactDigitsAndNonFiniteStrings() throws IOException {
        assertThat(render(ValueType.of(ValueKind.FLOAT32), 0.1f)).isEqualTo("0.1");
        assertThat(render(ValueType.of(ValueKind.FLOAT32), 3.4028235E38f)).isEqualTo("3.4028235E38");
        assertThat(render(ValueType.of(ValueKind.FLOAT64), 0.1)).isEqualTo("0.1");
        assertThat(render(ValueType.of(ValueKind.FLOAT64), 2e23)).isEqualTo("2.0E23");
        assertThat(render(ValueType.of(ValueKind.FLOAT64), -0.0)).isEqualTo("-0.0");
        assertThat(render(ValueType.of(ValueKind.FLOAT64), Double.NaN)).isEqualTo("\"NaN\"");
        assertThat(render(ValueType.of(ValueKind.FLOAT32), Float.POSITIVE_INFINITY)).isEqualTo("\"Infinity\"");
        assertThat(render(ValueType.of(ValueKind.FLOAT64), Double.NEGATIVE_INFINITY)).isEqualTo("\"-Infinity\"");
        // what is written parses back to the very same double
        for (double d : new double[] {Math.PI, 1e-320, Double.MAX_VALUE, 5e-324, 123456.789e100}) {
            assertThat(Double.parseDouble(render(ValueType.of(ValueKind.FLOAT64), d))).isEqualTo(d);
        }
    }

    @Test
    void booleansTextBytesAndBits() throws IOException {
        assertThat(render(ValueType.of(ValueKind.BOOLEAN), true)).isEqualTo("true");
        assertThat(render(ValueType.of(ValueKind.TEXT), "a \"q\" ü 🎉")).isEqualTo("\"a \\\"q\\\" ü 🎉\"");
        assertThat(render(ValueType.of(ValueKind.TEXT), "{\"json\": null}")).isEqualTo("\"{\\\"json\\\": null}\"");
        assertThat(render(ValueType.of(ValueKind.TEXT), "null")).isEqualTo("\"null\"");
        assertThat(render(ValueType.of(ValueKind.BYTES), new byte[] {0, 1, 2, (byte) 0xff, 0}))
                .isEqualTo("{\"_base64\":\"AAEC/wA=\"}");
        assertThat(render(ValueType.of(ValueKind.BITS), new byte[] {0x05})).isEqualTo("{\"_base64\":\"BQ==\"}");
        assertThat(render(ValueType.of(ValueKind.UUID), UUID.fromString("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")))
                .isEqualTo("\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"");
    }

    @Test
    void dates() throws IOException {
        ValueType date = ValueType.of(ValueKind.DATE);
        assertThat(render(date, LocalDate.of(2024, 3, 30))).isEqualTo("\"2024-03-30\"");
        assertThat(render(date, LocalDate.of(10000, 1, 1))).isEqualTo("\"+10000-01-01\"");
        assertThat(render(date, SpecialValue.POSITIVE_INFINITY)).isEqualTo("\"infinity\"");
        assertThat(render(date, SpecialValue.NEGATIVE_INFINITY)).isEqualTo("\"-infinity\"");
        assertThat(render(date, SpecialValue.zeroDate("0000-00-00"))).isEqualTo("\"0000-00-00\"");
    }

    @Test
    void timesFollowTheDeclaredPrecision() throws IOException {
        Duration noon = Duration.ofHours(12).plusMillis(100);
        assertThat(render(ValueType.temporal(ValueKind.TIME, 3), noon)).isEqualTo("\"12:00:00.100\"");
        assertThat(render(ValueType.temporal(ValueKind.TIME, 6), noon)).isEqualTo("\"12:00:00.100000\"");
        assertThat(render(ValueType.temporal(ValueKind.TIME, ValueType.UNSPECIFIED_PRECISION), noon)).isEqualTo("\"12:00:00.1\"");
        assertThat(render(ValueType.temporal(ValueKind.TIME, 0), Duration.ofHours(24))).isEqualTo("\"24:00:00\"");
        // MySQL TIME is a signed duration past 24 hours
        assertThat(render(ValueType.temporal(ValueKind.TIME, 0), Duration.ofHours(-838).minusMinutes(59).minusSeconds(59)))
                .isEqualTo("\"-838:59:59\"");
        assertThat(render(ValueType.temporal(ValueKind.TIME, 1), Duration.ofMillis(-1500))).isEqualTo("\"-00:00:01.5\"");
        // a value finer than its declared precision keeps all its digits: nothing is dropped
        assertThat(render(ValueType.temporal(ValueKind.TIME, 0), Duration.ofNanos(1))).isEqualTo("\"00:00:00.000000001\"");
    }

    @Test
    void timestampsWithoutZoneAndInstantsInUtc() throws IOException {
        LocalDateTime t = LocalDateTime.of(2024, 3, 30, 23, 30, 0, 120_000_000);
        assertThat(render(ValueType.temporal(ValueKind.TIMESTAMP, 3), t)).isEqualTo("\"2024-03-30T23:30:00.120\"");
        assertThat(render(ValueType.temporal(ValueKind.TIMESTAMP, ValueType.UNSPECIFIED_PRECISION), t))
                .isEqualTo("\"2024-03-30T23:30:00.12\"");
        assertThat(render(ValueType.temporal(ValueKind.TIMESTAMP, 0), t.withNano(0))).isEqualTo("\"2024-03-30T23:30:00\"");
        assertThat(render(ValueType.temporal(ValueKind.TIMESTAMP, 0), SpecialValue.zeroDate("0000-00-00 00:00:00")))
                .isEqualTo("\"0000-00-00 00:00:00\"");
        Instant i = Instant.parse("2024-03-30T23:30:00Z");
        assertThat(render(ValueType.temporal(ValueKind.TIMESTAMP_TZ, ValueType.UNSPECIFIED_PRECISION), i))
                .isEqualTo("\"2024-03-30T23:30:00Z\"");
        assertThat(render(ValueType.temporal(ValueKind.TIMESTAMP_TZ, 6), i.plusNanos(1000)))
                .isEqualTo("\"2024-03-30T23:30:00.000001Z\"");
        assertThat(render(ValueType.temporal(ValueKind.TIMESTAMP_TZ, 6), SpecialValue.POSITIVE_INFINITY))
                .isEqualTo("\"infinity\"");
    }

    @Test
    void arraysNestAndKeepNullElements() throws IOException {
        ValueType ints = ValueType.arrayOf(ValueType.of(ValueKind.INTEGER));
        assertThat(render(ints, Arrays.asList(1L, null, 3L))).isEqualTo("[1,null,3]");
        assertThat(render(ints, List.of(List.of(1L, 2L), List.of(3L, 4L)))).isEqualTo("[[1,2],[3,4]]");
        assertThat(render(ValueType.arrayOf(ValueType.of(ValueKind.BIGINT)), List.of(1L))).isEqualTo("[\"1\"]");
        assertThat(render(ints, null)).isEqualTo("null");
    }

    @Test
    void nullIsNullButAnAbsentValueIsLeftOutAndListed() throws IOException {
        RowType type = RowType.of(List.of("id", "note", "big"),
                List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT)));
        Row before = Row.of(type, 1L, null, "old");
        Row after = Row.builder(type).set(0, 1L).set(1, null).build(); // "big" not supplied
        ChangeEvent e = ChangeEvent.builder(Op.UPDATE, ORDERS, STREAM).before(before).after(after).build();
        JsonNode json = MAPPER.readTree(JsonRenderer.create().render(e));
        assertThat(json.get("before").toString()).isEqualTo("{\"id\":\"1\",\"note\":null,\"big\":\"old\"}");
        assertThat(json.get("after").toString()).isEqualTo("{\"id\":\"1\",\"note\":null}");
        assertThat(json.get("unchanged_columns").toString()).isEqualTo("[\"big\"]");
    }

    @Test
    void envelope() throws IOException {
        RowType type = RowType.of(List.of("id", "amount"),
                List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.DECIMAL)));
        RowShape shape = RowShape.of("public", "orders",
                List.of(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("amount", "numeric(12,4)", false)),
                List.of("id"));
        ChangeEvent e = ChangeEvent.builder(Op.INSERT, ORDERS, STREAM)
                .after(Row.of(type, 9L, new BigDecimal("12.5000")))
                .shape(shape)
                .transaction(TransactionInfo.of("768", 1, TransactionInfo.UNKNOWN))
                .build();
        String json = new String(JsonRenderer.create().render(e), StandardCharsets.UTF_8);
        assertThat(json).isEqualTo("{\"op\":\"insert\",\"schema\":\"public\",\"table\":\"orders\","
                + "\"after\":{\"id\":\"9\",\"amount\":\"12.5000\"},"
                + "\"source\":{\"connector\":\"postgres\",\"db\":\"shop\",\"schema\":\"public\",\"table\":\"orders\","
                + "\"position\":\"0/16B3748\",\"commit_time\":\"2024-03-30T23:30:00Z\",\"snapshot\":false,"
                + "\"type_mapping\":\"v2\"},"
                + "\"transaction\":{\"id\":\"768\",\"index\":1},"
                + "\"shape\":{\"id\":\"b624610ff39e262dce3871616498fde0548b197edb6459794bb3754d474a515a\","
                + "\"schema\":\"public\",\"table\":\"orders\",\"columns\":["
                + "{\"name\":\"id\",\"data_type\":\"bigint\",\"nullable\":false},"
                + "{\"name\":\"amount\",\"data_type\":\"numeric(12,4)\",\"nullable\":false}],"
                + "\"primary_key\":[\"id\"]}}");

        assertThat(JsonRenderer.builder().shapes(ShapeRendering.ID).build().renderShape(shape))
                .as("the shape alone, always in full").isEqualTo(MAPPER.readTree(json).get("shape").toString());

        String compact = new String(JsonRenderer.builder().shapes(ShapeRendering.ID).build().render(e), StandardCharsets.UTF_8);
        assertThat(MAPPER.readTree(compact).get("shape").toString()).isEqualTo(
                "{\"id\":\"b624610ff39e262dce3871616498fde0548b197edb6459794bb3754d474a515a\","
                        + "\"schema\":\"public\",\"table\":\"orders\"}");
    }

    @Test
    void aStringRenderingIsTheSameDocumentAsTheUtf8OneAndShapesRenderedOnceStayRight() {
        RowType type = RowType.of(List.of("id", "note"), List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.TEXT)));
        RowShape shape = RowShape.of("public", "orders",
                List.of(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("note", "text", true)), List.of("id"));
        RowShape other = RowShape.of("public", "orders",
                List.of(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("note", "varchar(9)", true)),
                List.of("id"));
        JsonRenderer renderer = JsonRenderer.create();
        for (RowShape s : List.of(shape, other, shape)) {
            for (String note : new String[] {"plain", "caf\u00e9 \ud83d\ude00 \u0001 \"q\" \\", ""}) {
                ChangeEvent e = ChangeEvent.builder(Op.INSERT, ORDERS, STREAM).after(Row.of(type, 9L, note)).shape(s).build();
                assertThat(renderer.renderToString(e)).isEqualTo(new String(renderer.render(e), StandardCharsets.UTF_8))
                        .contains(renderer.renderShape(s));
            }
        }
    }

    @Test
    void snapshotRowWithoutShapeOrTransactionAndAMessageWithoutSchema() throws IOException {
        RowType type = RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.INTEGER)));
        ChangeEvent read = ChangeEvent.builder(Op.READ, ORDERS, SourceInfo.snapshot("postgres", null))
                .after(Row.of(type, 1L)).build();
        JsonNode json = MAPPER.readTree(JsonRenderer.create().render(read));
        assertThat(json.get("op").asText()).isEqualTo("read");
        assertThat(json.has("before")).isFalse();
        assertThat(json.has("shape")).as("unknown shape is left out, not rendered empty").isFalse();
        assertThat(json.has("transaction")).isFalse();
        assertThat(json.get("source").get("snapshot").asBoolean()).isTrue();
        assertThat(json.get("source").has("position")).isFalse();

        TableId messages = TableId.of("shop", null, "outbox__messages");
        ChangeEvent message = ChangeEvent.builder(Op.MESSAGE, messages, STREAM)
                .after(Row.of(RowType.of(List.of("prefix"), List.of(ValueType.of(ValueKind.TEXT))), "outbox")).build();
        JsonNode m = MAPPER.readTree(JsonRenderer.create().render(message));
        assertThat(m.get("schema").isNull()).isTrue();
        assertThat(m.get("table").asText()).isEqualTo("outbox__messages");
    }

    @Test
    void rendersToAStreamAndLeavesItOpen() throws IOException {
        RowType type = RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.INTEGER)));
        ChangeEvent e = ChangeEvent.builder(Op.INSERT, ORDERS, STREAM).after(Row.of(type, 1L)).build();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JsonRenderer.create().render(e, out);
        out.write('\n');
        JsonRenderer.create().render(e, out);
        assertThat(out.toString(StandardCharsets.UTF_8).split("\n")).hasSize(2);
    }

    @Test
    void aValueOfTheWrongJavaTypeIsABugNamedWithoutTheValue() {
        assertThatThrownBy(() -> render(ValueType.of(ValueKind.INTEGER), "secret-value"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Field v of kind INTEGER holds a java.lang.String")
                .hasMessageNotContaining("secret-value");
    }

    @Test
    void aRendererTravelsWithTheJobAndKeepsItsSettings() throws Exception {
        JsonRenderer renderer = JsonRenderer.builder().wideIntegers(WideIntegers.NUMBER).shapes(ShapeRendering.ID).build();
        RowShape shape = RowShape.of("public", "orders", List.of(RowShape.Column.of("v", "bigint", false)), List.of("v"));
        RowType rowType = RowType.of(List.of("v"), List.of(ValueType.of(ValueKind.BIGINT)));
        ChangeEvent e = ChangeEvent.builder(Op.INSERT, ORDERS, STREAM).after(Row.of(rowType, 9007199254740993L))
                .shape(shape).build();
        String before = renderer.renderToString(e); // fills the shape cache, which is not serialized
        JsonRenderer copy = org.apache.flink.util.InstantiationUtil.clone(renderer);
        assertThat(copy.renderToString(e)).isEqualTo(before).contains("\"v\":9007199254740993")
                .doesNotContain("\"columns\"");
    }

    /** A bigint's digits are the JDK's, quoted by default and bare when asked. Replay: -Drustcdc.bigint.seed=N. */
    @Test
    void bigintsAsTheJdkPrintsThemInBothModes() throws IOException {
        long seed = Long.getLong("rustcdc.bigint.seed", System.nanoTime());
        System.out.println("JsonRendererTest bigint seed " + seed + " (replay with -Drustcdc.bigint.seed=" + seed + ")");
        Random random = new Random(seed);
        JsonRenderer numbers = JsonRenderer.builder().wideIntegers(WideIntegers.NUMBER).build();
        ValueType bigint = ValueType.of(ValueKind.BIGINT);
        for (int i = 0; i < 2_000; i++) {
            // every length of digits, both signs, and the ends
            long n = i < 4 ? new long[] {0, Long.MIN_VALUE, Long.MAX_VALUE, -1}[i] : random.nextLong() >> random.nextInt(64);
            assertThat(render(bigint, n)).as("seed " + seed + ": " + n).isEqualTo("\"" + n + "\"");
            assertThat(render(numbers, bigint, n)).as("seed " + seed + ": " + n).isEqualTo(Long.toString(n));
        }
    }

    private static String render(ValueType type, Object value) throws IOException {
        return render(JsonRenderer.create(), type, value);
    }

    private static String render(JsonRenderer renderer, ValueType type, Object value) throws IOException {
        RowType rowType = RowType.of(List.of("v"), List.of(type));
        ChangeEvent e = ChangeEvent.builder(Op.INSERT, ORDERS, STREAM).after(Row.of(rowType, value)).build();
        // the raw text as written: a parsed and re-written tree would show the parser's digits
        String json = new String(renderer.render(e), StandardCharsets.UTF_8);
        MAPPER.readTree(json); // and it is valid JSON
        String start = "\"after\":{\"v\":";
        return json.substring(json.indexOf(start) + start.length(), json.indexOf("},\"source\""));
    }
}
