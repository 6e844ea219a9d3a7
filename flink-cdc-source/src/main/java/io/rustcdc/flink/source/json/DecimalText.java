package io.rustcdc.flink.source.json;

import java.math.BigDecimal;

/**
 * A decimal's text, {@link BigDecimal#toPlainString()}'s exactly, written as a quoted JSON string straight
 * into a {@link JsonBuffer}: the digits of an unscaled value of up to 18 digits with the point put in by its
 * scale (no intermediate String); larger values and scales as {@code toPlainString} prints them.
 */
final class DecimalText {
    /** Scales written from the digits: at most 18 fraction digits as one padded number. */
    private static final int MAX_SCALE = 18;
    private static final long[] POWERS = new long[MAX_SCALE + 1];

    static {
        POWERS[0] = 1;
        for (int i = 1; i <= MAX_SCALE; i++) {
            POWERS[i] = POWERS[i - 1] * 10;
        }
    }

    private DecimalText() {}

    static void write(JsonBuffer out, BigDecimal v) {
        int scale = v.scale();
        if (v.precision() > 18 || scale < -MAX_SCALE || scale > MAX_SCALE) {
            out.string(v.toPlainString());
            return;
        }
        long unscaled = v.unscaledValue().longValue(); // below 10^18 by its precision
        out.ascii('"');
        if (unscaled < 0) {
            out.ascii('-');
            unscaled = -unscaled;
        }
        if (scale == 0) {
            out.number(unscaled);
        } else if (scale > 0) {
            long power = POWERS[scale];
            out.number(unscaled / power).ascii('.').padded(unscaled % power, scale);
        } else {
            out.number(unscaled);
            if (unscaled != 0) { // toPlainString writes zero as 0 whatever its scale
                for (int i = scale; i < 0; i++) {
                    out.ascii('0');
                }
            }
        }
        out.ascii('"');
    }
}
