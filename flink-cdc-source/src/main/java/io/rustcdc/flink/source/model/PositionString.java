package io.rustcdc.flink.source.model;

import java.util.function.Consumer;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A {@link PositionText} that builds a String: a position whose {@link SourcePosition#writeTo} writes its text in
 * pieces makes its {@code toString()} from that one layout, {@code PositionString.of(this::writeTo)}.
 */
@PublicEvolving
public final class PositionString implements PositionText {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final StringBuilder out = new StringBuilder(32);

    private PositionString() {}

    /** The text {@code writer} writes. */
    public static String of(Consumer<? super PositionText> writer) {
        PositionString text = new PositionString();
        writer.accept(text);
        return text.out.toString();
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
        int digits = Math.max(1, (67 - Long.numberOfLeadingZeros(n)) / 4);
        for (int i = Math.max(digits, width) - 1; i >= 0; i--) {
            out.append(i < 16 ? HEX[(int) (n >>> 4 * i) & 0xF] : '0');
        }
        return this;
    }
}
