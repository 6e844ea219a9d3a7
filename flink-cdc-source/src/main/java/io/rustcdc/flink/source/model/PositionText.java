package io.rustcdc.flink.source.model;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a {@link SourcePosition} writes its text piece by piece, without building a String first:
 * the JSON renderers write it straight into their buffer, escaping it there. The pieces, in order,
 * must make exactly the position's {@link SourcePosition#toString()}; {@link PositionString} makes that String of
 * them.
 */
@PublicEvolving
public interface PositionText {
    /** Characters as they are (the receiver escapes them where its format needs to). */
    PositionText text(String s);

    /** {@code n}'s decimal digits, as {@link Long#toString(long)} writes them. */
    PositionText decimal(long n);

    /**
     * {@code n}'s hex digits, unsigned and upper case, zero-padded on the left to at least {@code width}
     * digits: {@code Long.toHexString(n).toUpperCase()} when {@code width} is 1.
     */
    PositionText hex(long n, int width);
}
