package io.rustcdc.flink.source.spi;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.flink.annotation.Internal;

/**
 * Decimal numerals as databases print them ({@code -123.4500}), read into {@link BigDecimal}s equal to {@code
 * new BigDecimal(text)} (same unscaled value and scale). A plain numeral of up to 18 digits is read digit by
 * digit into a long; any other text goes to {@link BigDecimal#BigDecimal(String)}, which reads it or throws
 * {@link NumberFormatException}.
 */
@Internal
public final class DecimalNumerals {
    /** The most digits a long holds whatever they are. */
    private static final int LONG_DIGITS = 18;

    private DecimalNumerals() {}

    /** The numeral in the UTF-8 text {@code text[from, to)}, read in place (a row's bytes as a driver received them). */
    public static BigDecimal parse(byte[] text, int from, int to) {
        BigDecimal plain = plain(text, from, to);
        return plain != null ? plain : new BigDecimal(new String(text, from, to - from, StandardCharsets.UTF_8));
    }

    /**
     * The numeral {@code text} (a driver's String). Its Latin-1 bytes are read: a character beyond Latin-1 becomes
     * a '?', which no plain numeral has, so such a text goes to {@link BigDecimal#BigDecimal(String)} as it is.
     */
    public static BigDecimal parse(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        BigDecimal plain = plain(bytes, 0, bytes.length);
        return plain != null ? plain : new BigDecimal(text);
    }

    /** {@code -?D+(.D+)?} of at most 18 digits, else null. */
    private static BigDecimal plain(byte[] t, int from, int to) {
        boolean negative = from < to && t[from] == '-';
        int first = negative ? from + 1 : from;
        if (to - first > LONG_DIGITS + 1) {
            return null;
        }
        int point = -1;
        long unscaled = 0;
        for (int i = first; i < to; i++) {
            int digit = t[i] - '0';
            if (digit >= 0 && digit <= 9) {
                unscaled = unscaled * 10 + digit;
            } else if (t[i] == '.' && point < 0) {
                point = i;
            } else {
                return null;
            }
        }
        int digits = to - first - (point < 0 ? 0 : 1);
        if (digits < 1 || digits > LONG_DIGITS || point == first || point == to - 1) {
            return null;
        }
        return BigDecimal.valueOf(negative ? -unscaled : unscaled, point < 0 ? 0 : to - point - 1);
    }
}
