package io.rustcdc.flink.mysql;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.annotation.Nullable;

/**
 * A column's definition in a CREATE or ALTER TABLE statement, as written: its declared type, the
 * nullability and primary key it states, and where {@code FIRST} or {@code AFTER} puts it.
 */
final class ColumnDefinition {
    /** Words that end a column's type in its definition (when they follow the type's first word). */
    private static final Set<String> ATTRIBUTES = Set.of("NOT", "NULL", "DEFAULT", "AUTO_INCREMENT", "UNIQUE", "PRIMARY",
            "KEY", "COMMENT", "COLLATE", "CHARACTER", "CHARSET", "BINARY", "ASCII", "UNICODE", "COLUMN_FORMAT", "STORAGE",
            "REFERENCES", "CHECK", "CONSTRAINT", "GENERATED", "AS", "VISIBLE", "INVISIBLE", "SRID", "ON", "FIRST", "AFTER",
            "ENGINE_ATTRIBUTE", "SECONDARY_ENGINE_ATTRIBUTE", "VIRTUAL", "PERSISTENT", "STORED", "WITH", "WITHOUT",
            "COMPRESSED", "REF_SYSTEM_ID");
    /** Words after which the rows before the column read a value for it: generated or numbered. */
    private static final Set<String> FILLING = Set.of("AS", "GENERATED", "AUTO_INCREMENT");
    /** The declared type, normalized ({@link #normalizedType}): {@code decimal(12,4)}, {@code int unsigned}. */
    final String type;
    /** NOT NULL: false, NULL: true, neither: null. */
    @Nullable final Boolean nullable;
    /** {@code PRIMARY KEY} (or {@code KEY}) in the definition. */
    final boolean primaryKey;
    /** Where the column goes: null where it is (or at the end), "" FIRST, else AFTER that column. */
    @Nullable final String after;
    /**
     * The character set it states ({@code CHARACTER SET}, {@code CHARSET}, the set of its {@code COLLATE},
     * {@code ASCII}: latin1, {@code UNICODE}: ucs2), lower case; null when it states none (the table's default).
     */
    @Nullable final String charset;
    /**
     * Rows written before the column was added read a value for it, not null: it states a {@code DEFAULT} other than
     * {@code NULL}, {@code AUTO_INCREMENT}, or is generated ({@code AS}, {@code GENERATED ALWAYS AS}).
     */
    final boolean filled;

    private ColumnDefinition(String type, @Nullable Boolean nullable, boolean primaryKey, @Nullable String after,
            @Nullable String charset, boolean filled) {
        this.charset = charset;
        this.filled = filled;
        this.type = type;
        this.nullable = nullable;
        this.primaryKey = primaryKey;
        this.after = after;
    }

    /** The definition's tokens, from its type on. */
    static ColumnDefinition read(List<String> d) {
        int typeEnd = 1;
        while (typeEnd < d.size() && !ATTRIBUTES.contains(MySqlDdl.upper(d.get(typeEnd)))) {
            if (d.get(typeEnd).equals("(")) {
                typeEnd = MySqlColumnDdl.closing(d, typeEnd);
            }
            typeEnd++;
        }
        Boolean nullable = null;
        boolean primaryKey = false;
        String after = null;
        String charset = null;
        String previous = "";
        boolean filled = false;
        for (int i = typeEnd; i < d.size(); i++) {
            String t = MySqlDdl.upper(d.get(i));
            filled |= previous.equals("DEFAULT") && !t.equals("NULL") || FILLING.contains(t);
            if (t.equals("(")) {
                i = MySqlColumnDdl.closing(d, i);
                previous = ")";
                continue;
            }
            if (t.equals("NULL") && previous.equals("NOT")) {
                nullable = false;
            } else if (t.equals("NULL") && !previous.equals("DEFAULT")) {
                nullable = true;
            } else if (t.equals("KEY") && !previous.equals("UNIQUE")) {
                primaryKey = true;
            } else if (t.equals("FIRST")) {
                after = "";
            } else if (t.equals("AFTER") && i + 1 < d.size()) {
                after = MySqlDdl.identifier(d.get(++i));
            } else if (t.equals("SET") && previous.equals("CHARACTER") || t.equals("CHARSET")) {
                charset = i + 1 < d.size() ? name(d.get(++i)) : null;
            } else if (t.equals("COLLATE") && i + 1 < d.size()) {
                String set = ColumnCharsets.ofCollation(name(d.get(++i)));
                charset = charset == null ? set : charset;
            } else if (t.equals("ASCII") || t.equals("UNICODE")) {
                charset = t.equals("ASCII") ? "latin1" : "ucs2";
            }
            previous = t;
        }
        return new ColumnDefinition(normalizedType(d.subList(0, typeEnd)), nullable, primaryKey, after, charset, filled);
    }

    /** A character set's or collation's name, as an identifier or a string ({@code 'latin1'}), lower case. */
    private static String name(String token) {
        boolean string = token.startsWith("'") || token.startsWith("\"");
        String n = string ? token.substring(1, token.length() - 1) : MySqlDdl.identifier(token);
        return n.toLowerCase(Locale.ROOT);
    }

    /**
     * A type's tokens as one text, lower case outside quoted strings, one space between words and
     * none around punctuation: {@code DECIMAL ( 12, 4 )} and {@code decimal(12,4)} are the same.
     */
    static String normalizedType(List<String> tokens) {
        StringBuilder text = new StringBuilder();
        boolean spaced = false;
        for (String t : tokens) {
            boolean word = Character.isLetterOrDigit(t.charAt(0)) || t.charAt(0) == '_';
            if (word && spaced) {
                text.append(' ');
            }
            text.append(t.startsWith("'") || t.startsWith("\"") ? t : t.toLowerCase(Locale.ROOT));
            spaced = word || t.equals(")"); // decimal(10,0) unsigned
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return type + (charset == null ? "" : ColumnCharsets.SUFFIX + charset)
                + (nullable == null ? "" : nullable ? " NULL" : " NOT NULL") + (primaryKey ? " PRIMARY KEY" : "");
    }
}
