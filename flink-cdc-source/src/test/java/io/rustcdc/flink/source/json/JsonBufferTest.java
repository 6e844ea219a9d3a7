package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import io.rustcdc.flink.testing.PositionTexts;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonBuffer} against Jackson's generators with the settings the renderers used before it: the
 * same bytes as the UTF-8 generator and the same characters as the character generator, for every
 * UTF-16 unit, random strings, numbers and binary.
 */
class JsonBufferTest {
    private static final JsonFactory JACKSON = JsonFactory.builder()
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    private interface Write {
        void to(JsonGenerator g) throws IOException;
    }

    private static String jacksonChars(Write w) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JACKSON.createGenerator(out)) {
            w.to(g);
        }
        return out.toString();
    }

    private static byte[] jacksonBytes(Write w) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JACKSON.createGenerator(out, JsonEncoding.UTF8)) {
            w.to(g);
        }
        return out.toByteArray();
    }

    /** {@code s} as a string value, and as text between quotes (a position's pieces). */
    private static void assertSameString(String s) throws IOException {
        String chars = jacksonChars(g -> g.writeString(s));
        byte[] bytes = jacksonBytes(g -> g.writeString(s));
        assertThat(new JsonBuffer(16).reset(false).string(s).toString()).isEqualTo(chars);
        assertThat(new JsonBuffer(16).reset(true).string(s).toByteArray()).isEqualTo(bytes);
        assertThat(new JsonBuffer(16).reset(false).ascii('"').text(s).ascii('"').toString()).isEqualTo(chars);
        assertThat(new JsonBuffer(16).reset(true).ascii('"').text(s).ascii('"').toByteArray()).isEqualTo(bytes);
    }

    @Test
    void numbersAsTheJdkPrintsThem() {
        Random random = new Random(13);
        for (int i = 0; i < 20_000; i++) {
            long n = switch (i % 4) {
                case 0 -> random.nextInt(1000) - 500;
                case 1 -> random.nextInt();
                case 2 -> random.nextLong() >> random.nextInt(64);
                default -> random.nextLong();
            };
            String written = new JsonBuffer(1).reset(false).number(n).toString();
            if (!written.equals(Long.toString(n))) {
                assertThat(written).isEqualTo(Long.toString(n));
            }
        }
        long power = 1;
        for (int k = 0; k <= 18; k++, power *= 10) { // each digit count's bounds
            for (long n : new long[] {power - 1, power, power + 1, -power + 1, -power, -power - 1}) {
                assertThat(new JsonBuffer(1).reset(false).number(n).toString()).isEqualTo(Long.toString(n));
            }
        }
        for (long n : new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, Integer.MAX_VALUE + 1L}) {
            assertThat(new JsonBuffer(1).reset(false).number(n).toString()).isEqualTo(Long.toString(n));
        }
    }

    @Test
    void hexDigitsAsTheJdkPrintsThem() {
        PositionTexts.assertHexAsTheJdkPrints((n, width) -> new JsonBuffer(4).reset(false).hex(n, width).toString());
        assertThat(new JsonBuffer(4).reset(false).hex(0, 0).toString()).isEqualTo("0");
        assertThat(new JsonBuffer(4).reset(false).hex(-1, 1).toString()).isEqualTo("FFFFFFFFFFFFFFFF");
        assertThat(new JsonBuffer(4).reset(false).hex(0x2D, 8).decimal(-12).toString()).isEqualTo("0000002D-12");
    }

    @Test
    void paddedDigitsAsFormatPrintsThem() {
        Random random = new Random(7);
        for (int i = 0; i < 4_000; i++) {
            long n = switch (i % 4) {
                case 0 -> random.nextInt(100);
                case 1 -> random.nextInt(1_000_000_000);
                case 2 -> random.nextInt(Integer.MAX_VALUE) + (long) Integer.MAX_VALUE - 5;
                default -> random.nextLong() >>> 1;
            };
            int width = random.nextInt(21);
            String expected = width == 0 ? Long.toString(n) : String.format("%0" + width + "d", n);
            String written = new JsonBuffer(4).reset(false).padded(n, width).toString();
            if (!written.equals(expected)) {
                assertThat(written).as(n + " width " + width).isEqualTo(expected);
            }
        }
        for (long power = 1; power > 0 && power <= Long.MAX_VALUE / 10 * 10; power *= 10) { // each count of digits
            for (long n : new long[] {power - 1, power, power + 1, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L}) {
                for (int width = 0; width <= 20; width++) {
                    String expected = width == 0 ? Long.toString(n) : String.format("%0" + width + "d", n);
                    assertThat(new JsonBuffer(4).reset(false).padded(n, width).toString()).as(n + " width " + width)
                            .isEqualTo(expected);
                }
            }
        }
        assertThat(new JsonBuffer(4).reset(false).padded(0, 0).toString()).isEqualTo("0");
        assertThat(new JsonBuffer(4).reset(false).padded(Long.MAX_VALUE, 2).toString()).isEqualTo("9223372036854775807");
    }

    @Test
    void everyUtf16UnitAloneAndBetweenLetters() throws IOException {
        for (int c = 0; c <= 0xFFFF; c++) {
            assertSameString(String.valueOf((char) c));
            assertSameString("a" + (char) c + "b");
        }
    }

    @Test
    void randomStringsOfEveryRange() throws IOException {
        Random random = new Random(42);
        char[] pool = {'a', 'Z', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u00e9', '\u07ff', '\u0800', '\u20ac',
            '\u2028', '\ud83d', '\ude00', '\ud800', '\udfff', '\uffff', '?', '\u00ff', '\u0080'};
        for (int i = 0; i < 20_000; i++) {
            // mostly short, some past the length where the JDK's encoder works in wide blocks
            char[] chars = new char[i % 10 == 0 ? random.nextInt(100) : random.nextInt(12)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = random.nextBoolean() ? pool[random.nextInt(pool.length)] : (char) random.nextInt(0x10000);
            }
            assertSameString(new String(chars));
        }
        assertSameString("");
        assertSameString("x".repeat(100_000)); // past the buffer's first capacity
    }

    @Test
    void questionMarksBesideUnpairedSurrogatesWhichTheJdkEncoderAlsoWritesAsQuestionMarks() throws IOException {
        String[] cases = {"?", "??", "a?b", "\ud800", "?\ud800", "\ud800?", "?\udfff?", "\u00e9?", "?\u00e9\ud800",
            "\u20ac?\ude00", "\ud83d\ude00?", "?\ud83d\ude00", "\"?\n\ud800\\", "x".repeat(40) + "?" + "\udc00"};
        for (String s : cases) {
            assertSameString(s);
            assertSameString("a".repeat(40) + s + "b".repeat(40)); // long enough for the JDK's encoder
        }
    }

    @Test
    void asciiRunsWithAnEscapeAtEveryPlace() throws IOException {
        String[] escapes = {"\"", "\\", "\n", "\u0001", "\u001f", "?", "\u007f", "\u00e9", "\ud800", "\ud83d\ude00"};
        for (String escape : escapes) {
            for (int at = 0; at <= 70; at++) {
                assertSameString("n".repeat(at) + escape + "t".repeat(70 - at));
            }
        }
    }

    @Test
    void numbersBooleansNullsAndBinary() throws IOException {
        long[] longs = {0, 1, -1, 9, 10, -10, 99, 100, 123456789, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE / 10, -999_999_999_999L};
        for (long n : longs) {
            assertThat(new JsonBuffer(1).reset(false).number(n).toString()).isEqualTo(jacksonChars(g -> g.writeNumber(n)));
        }
        double[] doubles = {0.0, -0.0, 0.1, 1.0, 100.0, 1e23, 1e-7, 2.2250738585072014E-308, Double.MIN_VALUE,
            Double.MAX_VALUE, 123456.789, 5e-324, 1.0 / 3};
        for (double d : doubles) {
            assertThat(new JsonBuffer(1).reset(false).number(d).toString()).isEqualTo(jacksonChars(g -> g.writeNumber(d)));
            float f = (float) d;
            assertThat(Float.isFinite(f) || d == Double.MAX_VALUE).isTrue(); // the renderer writes no other float
            if (!Float.isFinite(f)) {
                continue;
            }
            assertThat(new JsonBuffer(1).reset(false).number(f).toString()).isEqualTo(jacksonChars(g -> g.writeNumber(f)));
        }
        Random random = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isFinite(d)) {
                assertThat(new JsonBuffer(1).reset(false).number(d).toString()).isEqualTo(jacksonChars(g -> g.writeNumber(d)));
            }
            byte[] data = new byte[random.nextInt(80)];
            random.nextBytes(data);
            assertThat(new JsonBuffer(1).reset(false).base64(data).toString())
                    .isEqualTo(jacksonChars(g -> g.writeBinary(data)));
        }
        assertThat(new JsonBuffer(1).reset(false).bool(true).comma().bool(false).comma().nullValue().toString())
                .isEqualTo("true,false,null");
        assertThat(new JsonBuffer(1).reset(false).string(null).toString()).isEqualTo("null");
    }

    /**
     * {@link JsonBuffer#known} writes what {@link JsonBuffer#string} writes, in both forms, one buffer written
     * again and again from a small pool (so that strings come back, as equal copies too, and share slots).
     * Replay: -Drustcdc.known.seed=N.
     */
    @Test
    void knownStringsAsStringWritesThemInBothFormsWhateverCameBefore() {
        long seed = Long.getLong("rustcdc.known.seed", System.nanoTime());
        System.out.println("JsonBufferTest known seed " + seed + " (replay with -Drustcdc.known.seed=" + seed + ")");
        Random random = new Random(seed);
        String[] fixed = {"orders", "public", "read", "v2", "postgres", "", "caf\u00e9", "a\"b", "x\ny", "\ud800",
            "t\udfff", "\ud83d\ude00", "k".repeat(64), "k".repeat(65)};
        char[] units = {'a', 'Z', '"', '\\', '\n', '\u0000', '\u00e9', '\u20ac', '\ud83d', '\ude00', '\ud800'};
        String[] pool = new String[40];
        for (int i = 0; i < pool.length; i++) {
            if (i < fixed.length) {
                pool[i] = fixed[i];
                continue;
            }
            char[] chars = new char[random.nextInt(8)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = units[random.nextInt(units.length)];
            }
            pool[i] = new String(chars);
        }
        JsonBuffer known = new JsonBuffer(8);
        JsonBuffer plain = new JsonBuffer(8);
        for (int i = 0; i < 20_000; i++) {
            boolean forBytes = random.nextBoolean();
            known.reset(forBytes);
            plain.reset(forBytes);
            for (int k = random.nextInt(6); k >= 0; k--) {
                String s = random.nextInt(20) == 0 ? null : pool[random.nextInt(pool.length)];
                String copy = s == null || random.nextBoolean() ? s : new String(s.toCharArray()); // equal, not the same
                known.comma().known(copy);
                plain.comma().string(copy);
            }
            String context = "seed " + seed + " document " + i;
            if (forBytes) {
                assertThat(known.toByteArray()).as(context).isEqualTo(plain.toByteArray());
            } else {
                assertThat(known.toString()).as(context).isEqualTo(plain.toString());
                assertThat(known.hasUnpairedSurrogate()).as(context).isEqualTo(plain.hasUnpairedSurrogate());
            }
        }
    }

    @Test
    void aBufferReusedForBytesAfterAStringWithAnUnpairedSurrogateEscapesIt() {
        JsonBuffer buffer = new JsonBuffer(4);
        assertThat(buffer.reset(false).string("x\ud800").toString()).isEqualTo("\"x\ud800\"");
        assertThat(buffer.hasUnpairedSurrogate()).isTrue();
        assertThat(new String(buffer.reset(true).string("x\ud800").toByteArray(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("\"x\\uD800\"");
        assertThat(buffer.reset(false).string("\u00e9").toString()).isEqualTo("\"\u00e9\"");
        assertThat(buffer.hasUnpairedSurrogate()).isFalse();
    }
}
