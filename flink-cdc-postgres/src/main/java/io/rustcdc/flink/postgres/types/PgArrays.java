package io.rustcdc.flink.postgres.types;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses PostgreSQL's array output: {@code {1,2,NULL}}, nested braces for more dimensions,
 * double-quoted elements with backslash escapes. An array whose lower bounds are not 1 (output
 * as {@code [0:1]={...}}) cannot be represented as a list and is refused.
 */
final class PgArrays {
    private final String text;
    private final char delimiter;
    private final TextDecoder element;
    private int pos;

    private PgArrays(String text, char delimiter, TextDecoder element) {
        this.text = text;
        this.delimiter = delimiter;
        this.element = element;
    }

    static List<Object> parse(String text, char delimiter, TextDecoder element) {
        if (text.startsWith("[")) {
            throw new PgTextException("an array with lower bounds other than 1 has no exact list form");
        }
        PgArrays parser = new PgArrays(text, delimiter, element);
        List<Object> result = parser.array();
        if (parser.pos != text.length()) {
            throw new PgTextException("trailing characters after an array");
        }
        return result;
    }

    private List<Object> array() {
        expect('{');
        List<Object> items = new ArrayList<>();
        if (peek() == '}') {
            pos++;
            return items;
        }
        while (true) {
            char c = peek();
            if (c == '{') {
                items.add(array());
            } else if (c == '"') {
                items.add(element.decode(quoted()));
            } else {
                String token = unquoted();
                items.add(token.equalsIgnoreCase("NULL") ? null : element.decode(token));
            }
            char next = take();
            if (next == '}') {
                return items;
            }
            if (next != delimiter) {
                throw new PgTextException("unexpected character in an array");
            }
        }
    }

    private String quoted() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = take();
            if (c == '\\') {
                sb.append(take());
            } else if (c == '"') {
                return sb.toString();
            } else {
                sb.append(c);
            }
        }
    }

    private String unquoted() {
        int start = pos;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == delimiter || c == '}') {
                break;
            }
            pos++;
        }
        return text.substring(start, pos);
    }

    private char take() {
        char c = peek();
        pos++;
        return c;
    }

    private char peek() {
        if (pos >= text.length()) {
            throw new PgTextException("unterminated array");
        }
        return text.charAt(pos);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw new PgTextException("malformed array");
        }
        pos++;
    }
}
