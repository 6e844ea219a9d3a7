package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.json.DebeziumJsonRenderer;
import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.PositionText;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.function.BiFunction;

/**
 * Checks that a position's {@link SourcePosition#writeTo} writes exactly its {@link SourcePosition#toString()}:
 * into plain text printed as {@code java.lang} prints numbers, and in the JSON renderers' documents, whose bytes and
 * characters must equal those of the same event whose position only has that String (the renderers' path before
 * positions wrote their pieces). Where {@code toString()} is made of {@code writeTo} too ({@code PositionString}),
 * this checks the receivers agree on the pieces; {@link #assertText} checks the text itself, against one written by
 * hand.
 */
public final class PositionTexts {
    private static final JsonRenderer NATIVE = JsonRenderer.create();
    private static final DebeziumJsonRenderer DEBEZIUM = DebeziumJsonRenderer.create();
    private static final TableId TABLE = TableId.of("db", "public", "t");

    private PositionTexts() {}

    /**
     * Fails naming {@code context} (which position of the test) when {@code p} writes other text than its {@code toString()}.
     * Writes first, then asks for {@code toString()}: a position may keep the String once made.
     */
    public static void check(SourcePosition p, String context) {
        StringBuilder written = new StringBuilder();
        p.writeTo(new Plain(written));
        ChangeEvent event = event(p);
        byte[] bytes = NATIVE.render(event);
        String chars = NATIVE.renderToString(event);
        String debezium = beforeRenderTime(DEBEZIUM.render(event));
        String text = p.toString();
        assertEqual(written.toString(), text, "written text", context);
        ChangeEvent asString = event(new AsString(text));
        byte[] expected = NATIVE.render(asString);
        if (!Arrays.equals(bytes, expected)) {
            assertEqual(new String(bytes, StandardCharsets.UTF_8), new String(expected, StandardCharsets.UTF_8),
                    "JSON bytes", context);
            assertThat(bytes).as("JSON bytes (" + context + ")").isEqualTo(expected);
        }
        assertEqual(chars, NATIVE.renderToString(asString), "JSON string", context);
        assertEqual(debezium, beforeRenderTime(DEBEZIUM.render(asString)), "Debezium JSON", context);
    }

    /**
     * Fails unless {@code p} writes and prints exactly {@code expected}, a text written by hand: writes first (a
     * position may keep its String once made), then checks as {@link #check} does and asks for {@code toString()}.
     */
    public static void assertText(SourcePosition p, String expected) {
        StringBuilder written = new StringBuilder();
        p.writeTo(new Plain(written));
        assertThat(written.toString()).as("written text").isEqualTo(expected);
        check(p, "expected " + expected);
        assertThat(p.toString()).as("toString()").isEqualTo(expected);
    }

    private static void assertEqual(String written, String expected, String what, String context) {
        if (!written.equals(expected)) {
            assertThat(written).as(what + " (" + context + ")").isEqualTo(expected);
        }
    }

    /** A Debezium document up to its last {@code ts_ms}, the clock's time when rendered: the source is before it. */
    private static String beforeRenderTime(String json) {
        return json.substring(0, json.lastIndexOf("\"ts_ms\":"));
    }

    private static ChangeEvent event(SourcePosition p) {
        return ChangeEvent.builder(Op.TRUNCATE, TABLE, SourceInfo.stream("test", p, Instant.ofEpochSecond(1))).build();
    }

    /**
     * {@code written(n, width)}, a {@link PositionText}'s {@code hex(n, width)}, against the JDK's printing: 4,000
     * numbers of every size (a fixed seed) and widths up to 20.
     */
    public static void assertHexAsTheJdkPrints(BiFunction<Long, Integer, String> written) {
        Random random = new Random(11);
        for (int i = 0; i < 4_000; i++) {
            long n = switch (i % 4) {
                case 0 -> random.nextInt(256);
                case 1 -> random.nextInt() & 0xFFFF_FFFFL;
                case 2 -> random.nextLong() >>> random.nextInt(64);
                default -> random.nextLong();
            };
            int width = random.nextInt(21);
            String digits = Long.toHexString(n).toUpperCase(Locale.ROOT);
            String expected = "0".repeat(Math.max(0, width - digits.length())) + digits;
            String text = written.apply(n, width);
            if (!text.equals(expected)) {
                assertThat(text).as(Long.toHexString(n) + " width " + width).isEqualTo(expected);
            }
        }
    }

    /** Text as {@link StringBuilder} and {@code java.lang} print it. */
    private static final class Plain implements PositionText {
        private final StringBuilder out;

        Plain(StringBuilder out) {
            this.out = out;
        }

        @Override
        public PositionText text(String s) {
            out.append(s);
            return this;
        }

        @Override
        public PositionText decimal(long n) {
            out.append(n);
            return this;
        }

        @Override
        public PositionText hex(long n, int width) {
            String digits = Long.toHexString(n).toUpperCase(Locale.ROOT);
            out.append("0".repeat(Math.max(0, width - digits.length()))).append(digits);
            return this;
        }
    }

    /** A position that is only its text, written by the interface's default. */
    private static final class AsString implements SourcePosition {
        private static final long serialVersionUID = 1L;
        private final String text;

        AsString(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
