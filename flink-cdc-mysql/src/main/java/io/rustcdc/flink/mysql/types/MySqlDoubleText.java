package io.rustcdc.flink.mysql.types;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * A double as Oracle MySQL writes it in JSON text: {@code my_gcvt(d, MY_GCVT_ARG_DOUBLE, 34)} (the
 * shortest digits that read back as {@code d}, in 'f' format while the decimal point is within 15
 * places, else as {@code 1.5e-7} / {@code 1e300}, no '+' and no zero padding in the exponent), with
 * {@code .0} appended when the text has neither a point nor an exponent ({@code Json_wrapper}).
 */
final class MySqlDoubleText {
    /** MY_GCVT_MAX_FIELD_WIDTH: DBL_DIG + 4 + max(5, MAX_DECPT_FOR_F_FORMAT). */
    private static final int WIDTH = 15 + 4 + 15;
    /** MAX_DECPT_FOR_F_FORMAT = DBL_DIG. */
    private static final int MAX_DECPT_FOR_F_FORMAT = 15;

    private MySqlDoubleText() {}

    static String json(double d) {
        String text = gcvt(d);
        return text.indexOf('.') >= 0 || text.indexOf('e') >= 0 ? text : text + ".0";
    }

    static String gcvt(double x) {
        if (!Double.isFinite(x)) {
            throw new IllegalArgumentException("JSON holds no " + x);
        }
        boolean sign = x < 0 || x == 0 && 1 / x < 0; // dtoa reports the sign of -0 too
        int width = x < 0 ? WIDTH - 1 : WIDTH;
        String digits;
        int decpt;
        if (x == 0) {
            digits = "0";
            decpt = 1;
        } else {
            BigDecimal shortest = shortest(Math.abs(x));
            digits = shortest.unscaledValue().toString();
            decpt = digits.length() - shortest.scale();
            int end = digits.length();
            while (end > 1 && digits.charAt(end - 1) == '0') {
                end--;
            }
            digits = digits.substring(0, end);
        }
        int len = digits.length();
        int expLen = 1 + (decpt >= 101 || decpt <= -99 ? 1 : 0) + (decpt >= 11 || decpt <= -9 ? 1 : 0);
        boolean haveSpace = (decpt <= 0 ? len - decpt + 2 : decpt < len ? len + 1 : decpt) <= width;
        boolean forceE = decpt <= 0 && width <= 2 - decpt && width >= 3 + expLen;
        boolean fFormat = (haveSpace || decpt <= width && (decpt >= -1 || decpt == -2 && (len > 1 || !forceE))
                && !forceE)
                && (!haveSpace || decpt >= -MAX_DECPT_FOR_F_FORMAT + 1 && (decpt <= MAX_DECPT_FOR_F_FORMAT || len > decpt));
        StringBuilder out = new StringBuilder(width + 2);
        if (sign) {
            out.append('-');
        }
        if (fFormat) {
            if (decpt <= 0) {
                out.append("0.");
                for (int i = decpt; i < 0; i++) {
                    out.append('0');
                }
                out.append(digits);
            } else if (decpt < len) {
                out.append(digits, 0, decpt).append('.').append(digits, decpt, len);
            } else {
                out.append(digits);
                for (int i = len; i < decpt; i++) {
                    out.append('0');
                }
            }
        } else {
            int exponent = decpt - 1;
            out.append(digits.charAt(0));
            if (len > 1) {
                out.append('.').append(digits, 1, len);
            }
            out.append('e').append(exponent);
        }
        return out.toString();
    }

    /**
     * The shortest decimal that reads back as {@code x} (> 0), the nearest of that length: dtoa's mode
     * 0. The nearest decimal of a length may miss where the one on the other side reads back (at a power
     * of two the doubles below are closer together than above), so both neighbours are tried.
     */
    private static BigDecimal shortest(double x) {
        BigDecimal exact = new BigDecimal(x);
        for (int precision = 1; precision <= 17; precision++) {
            BigDecimal best = null;
            for (RoundingMode mode : new RoundingMode[] {RoundingMode.HALF_EVEN, RoundingMode.FLOOR, RoundingMode.CEILING}) {
                BigDecimal candidate = exact.round(new MathContext(precision, mode));
                if (candidate.doubleValue() == x && (best == null
                        || candidate.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
                    best = candidate;
                }
            }
            if (best != null) {
                return best;
            }
        }
        throw new IllegalStateException("no 17-digit decimal reads back as " + x);
    }
}
