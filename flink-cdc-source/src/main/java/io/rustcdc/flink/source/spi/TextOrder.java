package io.rustcdc.flink.source.spi;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Building blocks for a {@link KeyOrder} of text: strings compared by Unicode code point (which is
 * the order of their UTF-8 bytes, unlike {@link String#compareTo}, which compares UTF-16 units and
 * puts U+E000..U+FFFF after supplementary characters), optionally with the shorter padded by a
 * character. Which collation behaves so is the connector's knowledge. Stateless.
 *
 * <pre>{@code
 * TextOrder.compareCodePoints("a", 1, "\uD83D\uDE00", 2); // negative: U+0061 < U+1F600
 * }</pre>
 */
@PublicEvolving
public final class TextOrder {
    private TextOrder() {}

    /**
     * Compares the first {@code la} UTF-16 units of {@code a} with the first {@code lb} of {@code b}
     * by code point; a proper prefix sorts first. Both lengths must end on a code point boundary.
     */
    public static int compareCodePoints(String a, int la, String b, int lb) {
        int n = Math.min(la, lb);
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                return unitOrder(x, y);
            }
        }
        return Integer.compare(la, lb);
    }

    /**
     * Compares {@code a} and {@code b} by code point as if the shorter were padded with {@code pad} to
     * the longer's length (SQL's PAD SPACE comparison when {@code pad} is a space): so {@code "a"}
     * equals {@code "a  "}, and {@code "a\t"} sorts before {@code "a"}.
     */
    public static int comparePadded(String a, String b, char pad) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                return unitOrder(x, y);
            }
        }
        String longer = a.length() > n ? a : b;
        int sign = longer == a ? 1 : -1;
        for (int i = n; i < longer.length(); i++) {
            char c = longer.charAt(i);
            if (c != pad) {
                return sign * unitOrder(c, pad);
            }
        }
        return 0;
    }

    /** The length of {@code s} without the {@code trailing} characters at its end. */
    public static int lengthWithoutTrailing(String s, char trailing) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == trailing) {
            end--;
        }
        return end;
    }

    /**
     * The code point order of two different UTF-16 units at the same position after an equal prefix:
     * a surrogate (part of a supplementary character, above U+FFFF) sorts after every other unit.
     */
    private static int unitOrder(char x, char y) {
        boolean sx = Character.isSurrogate(x);
        boolean sy = Character.isSurrogate(y);
        if (sx != sy) {
            return sx ? 1 : -1;
        }
        return Character.compare(x, y);
    }
}
