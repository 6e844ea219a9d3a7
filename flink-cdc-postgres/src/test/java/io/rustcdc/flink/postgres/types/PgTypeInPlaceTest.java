package io.rustcdc.flink.postgres.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.testing.Seeds;
import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Integers, numerics and booleans are read in place from the bytes COPY and pgoutput send. Random values
 * over each type's whole range, printed as PostgreSQL prints them, must read back exactly, from a String
 * and in place between other bytes; a text one character away must read as the JDK's parser reads it or
 * fail as a value that does not decode.
 */
class PgTypeInPlaceTest {
    private static final String MUTATIONS = "0123456789-+. eNx";
    private static final TextDecoder INT8 = PgType.scalar(PgType.INT8, -1, "bigint").decoder();
    private static final TextDecoder NUMERIC = PgType.scalar(PgType.NUMERIC, -1, "numeric").decoder();

    @Test
    void integersReadBackExactly() {
        Seeds.forEach("pgtypeinplace.seed", "pgtypeinplace.runs", 3, random -> {
            for (int i = 0; i < 50_000; i++) {
                long value = random.nextBoolean() ? random.nextLong() : random.nextInt(1 << random.nextInt(31));
                String text = Long.toString(random.nextBoolean() ? value : -value);
                assertThat(decode(INT8, text, random)).as(text).isEqualTo(Long.valueOf(text));
                String other = mutate(text, random);
                Long expected = parsesAsPostgresPrints(other) ? Long.valueOf(other) : null;
                if (expected != null) {
                    assertThat(decode(INT8, other, random)).as(other).isEqualTo(expected);
                } else {
                    assertThatThrownBy(() -> decode(INT8, other, random)).as(other)
                            .isInstanceOf(PgTextException.class).hasMessage("not an integer a long holds");
                }
            }
        });
    }

    @Test
    void integerBounds() {
        for (long edge : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, Integer.MIN_VALUE, 4294967295L}) {
            assertThat(decode(INT8, Long.toString(edge), new Random(edge))).isEqualTo(edge);
        }
        for (String text : new String[] {"9223372036854775808", "-9223372036854775809", "99999999999999999999",
                "-99999999999999999990", "", "-", "+1", "1 ", "--1", "1.0", "0x10", "\u0661"}) {
            assertThatThrownBy(() -> decode(INT8, text, new Random(text.hashCode()))).as(text)
                    .isInstanceOf(PgTextException.class);
        }
        // a range that ends before it starts (a length below zero) is no integer, not zero
        assertThatThrownBy(() -> INT8.decode(new byte[] {'1', '2'}, 2, 1)).isInstanceOf(PgTextException.class);
    }

    @Test
    void numericsReadBackExactly() {
        Seeds.forEach("pgtypeinplace.seed", "pgtypeinplace.runs", 3, random -> {
            for (int i = 0; i < 50_000; i++) {
                BigDecimal value = new BigDecimal(new java.math.BigInteger(1 + random.nextInt(120), random)
                        .multiply(java.math.BigInteger.valueOf(random.nextBoolean() ? 1 : -1)), random.nextInt(40));
                String text = value.toPlainString();
                assertThat(decode(NUMERIC, text, random)).as(text).isEqualTo(value);
            }
        });
        assertThat(decode(NUMERIC, "NaN", new Random(1))).isEqualTo(SpecialValue.NAN);
        assertThat(decode(NUMERIC, "-Infinity", new Random(2))).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(decode(NUMERIC, "Infinity", new Random(3))).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThatThrownBy(() -> decode(NUMERIC, "nan", new Random(4))).isInstanceOf(NumberFormatException.class);
    }

    @Test
    void booleans() {
        TextDecoder bool = PgType.scalar(PgType.BOOL, -1, "boolean").decoder();
        assertThat(decode(bool, "t", new Random(1))).isEqualTo(Boolean.TRUE);
        assertThat(decode(bool, "f", new Random(2))).isEqualTo(Boolean.FALSE);
        for (String text : new String[] {"", "true", "T", "tt", "1"}) {
            assertThatThrownBy(() -> decode(bool, text, new Random(3))).as(text).isInstanceOf(PgTextException.class);
        }
    }

    /** In place between random bytes, after checking that the String form reads the same. */
    private static Object decode(TextDecoder decoder, String text, Random random) {
        Object fromString;
        try {
            fromString = decoder.decode(text);
        } catch (RuntimeException e) {
            assertThatThrownBy(() -> InPlaceText.decode(decoder::decode, text, random)).as(text)
                    .isInstanceOf(e.getClass());
            throw e;
        }
        assertThat(InPlaceText.decode(decoder::decode, text, random)).as(text).isEqualTo(fromString);
        return fromString;
    }

    /** Optional minus, 1 to 19 digits, nothing else: what int2 to int8 print (Long.valueOf also takes a plus). */
    private static boolean parsesAsPostgresPrints(String text) {
        if (!text.matches("-?[0-9]{1,19}")) {
            return false;
        }
        try {
            Long.parseLong(text);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String mutate(String text, Random random) {
        char[] mutated = text.toCharArray();
        mutated[random.nextInt(mutated.length)] = MUTATIONS.charAt(random.nextInt(MUTATIONS.length()));
        return new String(mutated);
    }
}
