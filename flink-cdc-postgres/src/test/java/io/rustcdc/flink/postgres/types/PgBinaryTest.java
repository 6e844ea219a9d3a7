package io.rustcdc.flink.postgres.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.testing.Seeds;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Each binary decoder reads what the type's send function writes into the value its text decoder reads from
 * the type's text: random values over each type's range, written here as PostgreSQL's send functions write
 * them (big-endian; numerics in base-10000 digits with a weight and a display scale), between other bytes.
 */
class PgBinaryTest {
    private static final long EPOCH_2000_SECOND = LocalDate.of(2000, 1, 1).toEpochDay() * 86_400L;
    private static final long FIRST_MICROS = (LocalDate.of(-4713, 11, 24).toEpochDay() * 86_400L - EPOCH_2000_SECOND)
            * 1_000_000L;
    private static final long LAST_MICROS = (LocalDate.of(294277, 1, 1).toEpochDay() * 86_400L - EPOCH_2000_SECOND)
            * 1_000_000L - 1;

    @Test
    void numericsReadAsTheirTextReads() {
        TextDecoder text = PgType.scalar(PgType.NUMERIC, -1, "numeric").decoder();
        BinaryDecoder binary = PgType.scalar(PgType.NUMERIC, -1, "numeric").binaryDecoder();
        List<BigDecimal> edges = new ArrayList<>();
        for (String s : new String[] {"0", "0.0000", "1", "-1", "1.1000", "-0.0001", "0.0001", "0.00012", "10000",
                "9999", "99999999.9999", "123456789012345678", "1234567890123456.7890", "0.000000000000000001",
                "-99999999999999999999999999999999999999.123456789", "1E+1000", "1E-1000", "100000000000000000000"}) {
            edges.add(new BigDecimal(s).scale() < 0 ? new BigDecimal(s).setScale(0) : new BigDecimal(s));
        }
        for (BigDecimal value : edges) {
            assertNumeric(text, binary, value, new Random(value.hashCode()));
        }
        Seeds.forEach("pgbinary.seed", "pgbinary.runs", 3, random -> {
            for (int i = 0; i < 50_000; i++) {
                BigInteger unscaled = new BigInteger(1 + random.nextInt(random.nextInt(8) == 0 ? 3_000 : 70), random);
                BigDecimal value = new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(),
                        random.nextInt(random.nextInt(8) == 0 ? 1_000 : 20));
                assertNumeric(text, binary, value, random);
            }
        });
    }

    @Test
    void numericSpecialValuesAndMalformedBytes() {
        BinaryDecoder binary = PgBinary::numeric;
        assertThat(decode(binary, header(0, 0, 0xC000, 0))).isEqualTo(SpecialValue.NAN);
        assertThat(decode(binary, header(0, 0, 0xD000, 0))).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(decode(binary, header(0, 0, 0xF000, 0))).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        for (byte[] bad : new byte[][] {header(0, 0, 0x1000, 0), header(1, 0, 0, 0), concat(header(1, 0, 0, 0),
                new byte[] {0x27, 0x10}), concat(header(1, -1, 0, 2), new byte[] {0x00, 0x01}), new byte[7]}) {
            // a sign PostgreSQL never sends, digits missing, a digit of 10000, digits past the display scale
            assertThatThrownBy(() -> decode(binary, bad)).isInstanceOf(PgTextException.class)
                    .hasMessage("not a numeric in PostgreSQL's binary form");
        }
    }

    @Test
    void integersFloatsAndBooleans() {
        Seeds.forEach("pgbinary.seed", "pgbinary.runs", 3, random -> {
            for (int i = 0; i < 20_000; i++) {
                long value = random.nextLong();
                assertThat(decode(PgBinary::int8, ByteBuffer.allocate(8).putLong(value).array(), random)).isEqualTo(value);
                assertThat(decode(PgBinary::int4, ByteBuffer.allocate(4).putInt((int) value).array(), random))
                        .isEqualTo((long) (int) value);
                assertThat(decode(PgBinary::int2, ByteBuffer.allocate(2).putShort((short) value).array(), random))
                        .isEqualTo((long) (short) value);
                assertThat(decode(PgBinary::uint4, ByteBuffer.allocate(4).putInt((int) value).array(), random))
                        .isEqualTo(value & 0xFFFFFFFFL);
                double d = Double.longBitsToDouble(value);
                assertThat(decode(PgBinary::float8, ByteBuffer.allocate(8).putDouble(d).array(), random))
                        .isEqualTo(Double.valueOf(Double.toString(d)));
                float f = Float.intBitsToFloat((int) value);
                assertThat(decode(PgBinary::float4, ByteBuffer.allocate(4).putFloat(f).array(), random))
                        .isEqualTo(Float.valueOf(Float.toString(f)));
            }
        });
        // a NaN of other bits (x86's Infinity - Infinity) is the NaN the text "NaN" reads as, to the bit
        double otherNan = Double.longBitsToDouble(0xFFF8000000000000L);
        assertThat(Double.doubleToRawLongBits((Double) decode(PgBinary::float8,
                ByteBuffer.allocate(8).putDouble(otherNan).array())))
                .isEqualTo(Double.doubleToRawLongBits(Double.valueOf("NaN")));
        float otherFloatNan = Float.intBitsToFloat(0xFFC00001);
        assertThat(Float.floatToRawIntBits((Float) decode(PgBinary::float4,
                ByteBuffer.allocate(4).putFloat(otherFloatNan).array())))
                .isEqualTo(Float.floatToRawIntBits(Float.valueOf("NaN")));
        assertThat(decode(PgBinary::bool, new byte[] {1})).isEqualTo(true);
        assertThat(decode(PgBinary::bool, new byte[] {0})).isEqualTo(false);
        assertThatThrownBy(() -> decode(PgBinary::bool, new byte[] {2})).isInstanceOf(PgTextException.class);
        assertThatThrownBy(() -> decode(PgBinary::int8, new byte[4])).isInstanceOf(PgTextException.class)
                .hasMessage("not a bigint in PostgreSQL's binary form");
    }

    @Test
    void datesTimesAndTimestampsFromTwoThousand() {
        Seeds.forEach("pgbinary.seed", "pgbinary.runs", 3, random -> {
            for (int i = 0; i < 20_000; i++) {
                long micros = FIRST_MICROS + (long) (random.nextDouble() * (LAST_MICROS - FIRST_MICROS));
                if (random.nextInt(10) == 0) {
                    micros -= Math.floorMod(micros, 1_000_000L);
                }
                long second = EPOCH_2000_SECOND + Math.floorDiv(micros, 1_000_000L);
                int nano = (int) Math.floorMod(micros, 1_000_000L) * 1_000;
                byte[] bytes = ByteBuffer.allocate(8).putLong(micros).array();
                assertThat(decode(PgBinary::timestampTz, bytes, random)).isEqualTo(Instant.ofEpochSecond(second, nano));
                assertThat(decode(PgBinary::timestamp, bytes, random))
                        .isEqualTo(LocalDateTime.ofEpochSecond(second, nano, ZoneOffset.UTC));
                int days = (int) Math.floorDiv(second - EPOCH_2000_SECOND, 86_400L);
                assertThat(decode(PgBinary::date, ByteBuffer.allocate(4).putInt(days).array(), random))
                        .isEqualTo(LocalDate.of(2000, 1, 1).plusDays(days));
                long ofDay = Math.floorMod(micros, 86_400_000_000L);
                assertThat(decode(PgBinary::time, ByteBuffer.allocate(8).putLong(ofDay).array(), random))
                        .isEqualTo(Duration.ofNanos(ofDay * 1_000));
            }
        });
        byte[] latest = ByteBuffer.allocate(8).putLong(Long.MAX_VALUE).array();
        byte[] earliest = ByteBuffer.allocate(8).putLong(Long.MIN_VALUE).array();
        assertThat(decode(PgBinary::timestampTz, latest)).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(decode(PgBinary::timestamp, earliest)).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(decode(PgBinary::date, ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array()))
                .isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(decode(PgBinary::date, ByteBuffer.allocate(4).putInt(Integer.MIN_VALUE).array()))
                .isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        // 44 BC is astronomical year -43, as the text decoder reads "0044-03-15 BC"
        int ides = (int) (LocalDate.of(-43, 3, 15).toEpochDay() - LocalDate.of(2000, 1, 1).toEpochDay());
        assertThat(decode(PgBinary::date, ByteBuffer.allocate(4).putInt(ides).array()))
                .isEqualTo(InPlaceText.decode(PgTemporal::date, "0044-03-15 BC"));
        assertThat(decode(PgBinary::time, ByteBuffer.allocate(8).putLong(86_400_000_000L).array()))
                .isEqualTo(InPlaceText.decode(PgTemporal::time, "24:00:00"));
        assertThatThrownBy(() -> decode(PgBinary::time, ByteBuffer.allocate(8).putLong(86_400_000_001L).array()))
                .isInstanceOf(PgTextException.class);
    }

    @Test
    void textJsonbBytesAndUuids() {
        String text = "h\u00e9llo \uD83C\uDF89 \t\\ \"q\"\n";
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        assertThat(decode(PgBinary::text, utf8)).isEqualTo(text);
        assertThat(decode(PgBinary::jsonb, concat(new byte[] {1}, "{\"a\": 1}".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("{\"a\": 1}");
        assertThatThrownBy(() -> decode(PgBinary::jsonb, new byte[] {2, '{', '}'})).isInstanceOf(PgTextException.class);
        assertThat((byte[]) decode(PgBinary::bytea, utf8)).isEqualTo(utf8);
        assertThat((byte[]) decode(PgBinary::bytea, new byte[0])).isEmpty();
        UUID uuid = UUID.randomUUID();
        byte[] bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).array();
        assertThat(decode(PgBinary::uuid, bytes)).isEqualTo(uuid);
    }

    @Test
    void onlyTypesWhoseBinaryFormIsReadHaveABinaryDecoder() {
        assertThat(PgType.text("mood").binaryDecoder()).isNull();
        assertThat(PgType.scalar(1186, -1, "interval").binaryDecoder()).isNull();
        assertThat(PgType.array("integer[]", PgType.scalar(PgType.INT4, -1, "integer"), ',').binaryDecoder()).isNull();
        assertThat(PgType.scalar(PgType.JSONB, -1, "jsonb").binaryDecoder()).isNotNull();
    }

    private static void assertNumeric(TextDecoder text, BinaryDecoder binary, BigDecimal value, Random random) {
        Object read = decode(binary, numeric(value), random);
        assertThat(read).as(value.toPlainString()).isEqualTo(text.decode(value.toPlainString()));
        assertThat(((BigDecimal) read).scale()).as(value.toPlainString()).isEqualTo(value.scale());
    }

    /** {@code value} as {@code numeric_send} writes it: base-10000 digits aligned on the point, none zero at either end. */
    private static byte[] numeric(BigDecimal value) {
        int scale = value.scale();
        int fractionGroups = (scale + 3) / 4;
        BigInteger aligned = value.unscaledValue().abs().multiply(BigInteger.TEN.pow(fractionGroups * 4 - scale));
        List<Integer> digits = new ArrayList<>();
        BigInteger base = BigInteger.valueOf(10_000);
        while (aligned.signum() > 0) {
            BigInteger[] qr = aligned.divideAndRemainder(base);
            digits.add(0, qr[1].intValue());
            aligned = qr[0];
        }
        int weight = digits.size() - 1 - fractionGroups;
        while (!digits.isEmpty() && digits.get(digits.size() - 1) == 0) {
            digits.remove(digits.size() - 1);
        }
        if (digits.isEmpty()) {
            weight = 0;
        }
        ByteBuffer out = ByteBuffer.allocate(8 + 2 * digits.size());
        out.put(header(digits.size(), weight, value.signum() < 0 ? 0x4000 : 0, scale));
        digits.forEach(d -> out.putShort((short) (int) d));
        return out.array();
    }

    private static byte[] header(int count, int weight, int sign, int scale) {
        return ByteBuffer.allocate(8).putShort((short) count).putShort((short) weight).putShort((short) sign)
                .putShort((short) scale).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
    }

    private static Object decode(BinaryDecoder decoder, byte[] value) {
        return decoder.decode(value, 0, value.length);
    }

    /** Decodes {@code value} placed between random other bytes. */
    private static Object decode(BinaryDecoder decoder, byte[] value, Random random) {
        int before = random.nextInt(4);
        byte[] padded = new byte[before + value.length + random.nextInt(4)];
        random.nextBytes(padded);
        System.arraycopy(value, 0, padded, before, value.length);
        return decoder.decode(padded, before, before + value.length);
    }
}
