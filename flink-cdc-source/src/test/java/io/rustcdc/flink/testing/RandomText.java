package io.rustcdc.flink.testing;

import java.util.Random;

/**
 * Random strings that stress collations: letters in both cases, accented letters precomposed and
 * combining, letters that fold to others (ß, ı, İ), spaces (trailing ones too), tabs and other
 * characters below a space, no-break spaces, characters at the end of the BMP and beyond it
 * (supplementary, written as surrogate pairs), CJK, the empty string. No NUL (PostgreSQL's text
 * cannot hold it). Deterministic for a given {@link Random}.
 */
public final class RandomText {
    private static final String[] PARTS = {"a", "A", "b", "B", "z", "Z", "é", "É", "e\u0301", "ß", "ss", "SS", "ı", "I",
        "İ", "i", " ", " ", "  ", "\t", "\u0001", "\u00a0", "-", "_", "0", "9", "\ue000", "\uffee", "\ud83d\ude00",
        "\ud835\udd38", "中", "日本", "Ω", "ω", "ǅ", "ﬁ"};

    private RandomText() {}

    /** A string of up to {@code maxParts} parts (each one to two characters), sometimes empty. */
    public static String next(Random random, int maxParts) {
        StringBuilder s = new StringBuilder();
        int parts = random.nextInt(maxParts + 1);
        for (int i = 0; i < parts; i++) {
            s.append(PARTS[random.nextInt(PARTS.length)]);
        }
        if (random.nextInt(6) == 0) {
            s.append(random.nextBoolean() ? " " : "  "); // trailing spaces: PAD SPACE and character(n) ignore them
        }
        return s.toString();
    }

    /** {@code s} as an SQL string literal (single quotes doubled; no backslash escapes). */
    public static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
