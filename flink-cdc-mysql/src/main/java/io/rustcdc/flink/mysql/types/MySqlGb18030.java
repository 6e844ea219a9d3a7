package io.rustcdc.flink.mysql.types;

import java.nio.charset.Charset;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Oracle MySQL's gb18030 maps by GB18030-2005; Java's GB18030 maps by GB18030-2022 since JDK
 * 17.0.9 and 21 (by 2000 with {@code -Djdk.charset.GB18030=2000}). The two differ in exactly 36
 * sequences (checked against Oracle MySQL 9.7 for every two-byte sequence and every four-byte one
 * of the Basic Multilingual Plane, {@code MySqlCharsetsITCase}): 2022 gives 18 two-byte sequences
 * the characters 2005 gave 18 four-byte ones, and the four-byte ones the private-use characters the
 * two-byte ones had. Text decoded by the JVM's GB18030 is corrected here to the server's
 * characters, whichever mapping the JVM uses: a bijection on those 36 characters, no other
 * character changes.
 */
final class MySqlGb18030 {
    /** The 36 sequences and their characters in Oracle MySQL's gb18030 (GB18030-2005). */
    private static final String[][] MYSQL = {
        {"a6d9", "e78d"}, {"a6da", "e78e"}, {"a6db", "e78f"}, {"a6dc", "e790"}, {"a6dd", "e791"},
        {"a6de", "e792"}, {"a6df", "e793"}, {"a6ec", "e794"}, {"a6ed", "e795"}, {"a6f3", "e796"},
        {"fe59", "e81e"}, {"fe61", "e826"}, {"fe66", "e82b"}, {"fe67", "e82c"}, {"fe6d", "e832"},
        {"fe7e", "e843"}, {"fe90", "e854"}, {"fea0", "e864"},
        {"82359037", "9fb4"}, {"82359038", "9fb5"}, {"82359039", "9fb6"}, {"82359130", "9fb7"},
        {"82359131", "9fb8"}, {"82359132", "9fb9"}, {"82359133", "9fba"}, {"82359134", "9fbb"},
        {"84318236", "fe10"}, {"84318237", "fe11"}, {"84318238", "fe12"}, {"84318239", "fe13"},
        {"84318330", "fe14"}, {"84318331", "fe15"}, {"84318332", "fe16"}, {"84318333", "fe17"},
        {"84318334", "fe18"}, {"84318335", "fe19"},
    };

    /** The JVM's character for each of the 36 sequences, where it is not the server's, to the server's. */
    private static final Map<Character, Character> CORRECTIONS = corrections();

    private MySqlGb18030() {}

    private static Map<Character, Character> corrections() {
        Charset java = Charset.forName("GB18030");
        Map<Character, Character> corrections = new HashMap<>();
        for (String[] entry : MYSQL) {
            String decoded = new String(HexFormat.of().parseHex(entry[0]), java);
            char server = (char) Integer.parseInt(entry[1], 16);
            if (decoded.length() != 1) {
                throw new IllegalStateException("This JVM's GB18030 decodes " + entry[0] + " to " + decoded.length()
                        + " chars; gb18030 columns cannot be decoded as Oracle MySQL does");
            }
            if (decoded.charAt(0) != server) {
                corrections.put(decoded.charAt(0), server);
            }
        }
        if (!corrections.keySet().equals(new java.util.HashSet<>(corrections.values()))) {
            throw new IllegalStateException("This JVM's GB18030 maps the sequences GB18030-2005 and -2022 differ in "
                    + "neither way: gb18030 columns cannot be decoded as Oracle MySQL does");
        }
        return corrections;
    }

    /** {@code text}, decoded by the JVM's GB18030, with the server's characters for the 36 sequences. */
    static String toServers(String text) {
        if (CORRECTIONS.isEmpty()) {
            return text;
        }
        char[] chars = null;
        for (int i = 0; i < text.length(); i++) {
            Character server = CORRECTIONS.get(text.charAt(i));
            if (server != null) {
                if (chars == null) {
                    chars = text.toCharArray();
                }
                chars[i] = server;
            }
        }
        return chars == null ? text : new String(chars);
    }
}
