package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.util.Arrays;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * The source tables one SQL table reads: a schema part (the schema; for MySQL and MariaDB the
 * database) and a table part, each a name or a glob pattern in the syntax of {@code
 * table.include-list} ({@code *} any run of characters, {@code ?} exactly one; see {@code
 * docs/table-filters.md}). A backslash makes the next {@code *}, {@code ?}, {@code .} or {@code \}
 * a literal character, so that any table name can be written ({@link #escape}).
 *
 * <ul>
 *   <li>A part without a wildcard is a name, matched exactly (case-sensitively), as the database
 *       spells it.
 *   <li>A part with a wildcard is matched as {@code table.include-list} matches: ASCII
 *       case-insensitively.
 * </ul>
 *
 * <p>The source captures {@link #includePattern()}, which is never narrower than these tables
 * (the framework's globs have no escapes); {@link #matches} decides which of its tables' rows
 * belong to the SQL table. Immutable.
 *
 * <pre>{@code
 * SourceTables shards = SourceTables.of("shop", "public", "orders_*");
 * shards.matches(TableId.of("shop", "public", "orders_1")); // true
 * }</pre>
 */
@Internal
final class SourceTables implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The database of the tables; null where the schema is the database (MySQL, MariaDB). */
    @Nullable private final String database;
    private final Part schema;
    private final Part table;

    private SourceTables(@Nullable String database, Part schema, Part table) {
        this.database = database;
        this.schema = schema;
        this.table = table;
    }

    /**
     * The tables {@code schema} and {@code table} name (each a name or a pattern, with escapes) in
     * {@code database}, or where the schema is the database when that is null.
     *
     * @throws CdcException of kind CONFIGURATION for a blank part or a backslash before anything else
     */
    static SourceTables of(@Nullable String database, String schema, String table) {
        return new SourceTables(database, Part.parse(schema), Part.parse(table));
    }

    /**
     * The tables {@code name} names in {@code database}: {@code schema.table}, split at its first dot
     * not escaped by a backslash, or a table in {@code defaultSchema} when it has no such dot.
     */
    static SourceTables qualified(String database, String name, String defaultSchema) {
        int dot = firstUnescapedDot(name);
        return dot < 0 ? of(database, defaultSchema, name) : of(database, name.substring(0, dot), name.substring(dot + 1));
    }

    /** The one table {@code id}, whatever characters its names hold. */
    static SourceTables exactly(TableId id) {
        return of(id.database(), escape(id.schema() == null ? "" : id.schema()), escape(id.table()));
    }

    /** {@code name} written so that it matches only itself: {@code *}, {@code ?}, {@code .} and {@code \} escaped. */
    static String escape(String name) {
        StringBuilder s = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '*' || c == '?' || c == '.' || c == '\\') {
                s.append('\\');
            }
            s.append(c);
        }
        return s.toString();
    }

    /** Whether a part is a pattern: then the tables are those that match at planning and later. */
    boolean isPattern() {
        return schema.wildcard || table.wildcard;
    }

    /** The one table named; only when {@link #isPattern()} is false. */
    TableId literal() {
        if (isPattern()) {
            throw new IllegalStateException("a pattern names no one table: " + this);
        }
        return TableId.of(database == null ? schema.name() : database, schema.name(), table.name());
    }

    /**
     * Words for a pattern that matched no table: a Flink CDC regular expression ({@code orders_.*}) is
     * not one of these globs. Empty when the pattern does not look like one.
     */
    String regexHint() {
        String written = schema.text + "." + table.text;
        boolean regex = written.contains(".*") || written.contains(".+") || written.matches(".*[\\[\\]()|+^$].*");
        return regex ? " (if it is meant as a regular expression: names are globs as in table.include-list, '*' any "
                + "run of characters and '?' one, so write orders_* for Flink CDC's orders_.*)" : "";
    }

    /**
     * The framework's include pattern ({@code schema.table}) that captures at least these tables: an
     * escaped wildcard, and a dot in the schema part, become {@code ?}.
     */
    String includePattern() {
        return schema.glob(true) + "." + table.glob(false);
    }

    /** Whether {@code id}'s rows belong to these tables. */
    boolean matches(TableId id) {
        return id.schema() != null && schema.matches(id.schema()) && table.matches(id.table());
    }

    /** The tables as written, {@code schema.table}, for messages. */
    @Override
    public String toString() {
        return schema.text + "." + table.text;
    }

    private static int firstUnescapedDot(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '.') {
                return i;
            }
        }
        return -1;
    }

    /** One part: characters, {@link #ANY} or {@link #ONE}. */
    private static final class Part implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final int ANY = -1;
        private static final int ONE = -2;

        final String text;
        final int[] tokens;
        final boolean wildcard;
        /** The name this part spells, escapes resolved; null for a part with wildcards. */
        @Nullable private final String name;

        private Part(String text, int[] tokens) {
            this.text = text;
            this.tokens = tokens;
            this.wildcard = Arrays.stream(tokens).anyMatch(t -> t < 0);
            StringBuilder s = new StringBuilder(tokens.length);
            for (int t : tokens) {
                s.append((char) t);
            }
            this.name = wildcard ? null : s.toString();
        }

        static Part parse(String text) {
            if (text == null || text.isBlank()) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "A table or schema name of 'table-name' "
                        + "(or 'schema-name', 'database-name') is empty: name the source table as schema.table");
            }
            int[] tokens = new int[text.length()];
            int n = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\\') {
                    char next = i + 1 < text.length() ? text.charAt(i + 1) : 0;
                    if (next != '*' && next != '?' && next != '.' && next != '\\') {
                        throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + text + "' has a backslash "
                                + "before " + (next == 0 ? "its end" : "'" + next + "'") + ": a backslash escapes only "
                                + "*, ?, . and \\ (names are globs as in table.include-list, not regular expressions; "
                                + "write \\\\ for a backslash in a name)");
                    }
                    tokens[n++] = next;
                    i++;
                } else {
                    tokens[n++] = c == '*' ? ANY : c == '?' ? ONE : c;
                }
            }
            return new Part(text, Arrays.copyOf(tokens, n));
        }

        /** The name this part spells, escapes resolved; for a part without wildcards. */
        String name() {
            return name;
        }

        String glob(boolean dotIsOne) {
            StringBuilder s = new StringBuilder(tokens.length);
            for (int t : tokens) {
                if (t == ANY) {
                    s.append('*');
                } else if (t == ONE || t == '*' || t == '?' || dotIsOne && t == '.') {
                    s.append('?');
                } else {
                    s.append((char) t);
                }
            }
            return s.toString();
        }

        boolean matches(String name) {
            return wildcard ? glob(name) : this.name.equals(name);
        }

        /** Iterative glob match with backtracking to the last star, ASCII case-insensitive. */
        private boolean glob(String name) {
            int p = 0;
            int n = 0;
            int star = -1;
            int starMatch = 0;
            while (n < name.length()) {
                if (p < tokens.length && (tokens[p] == ONE || tokens[p] >= 0 && fold(tokens[p]) == fold(name.charAt(n)))) {
                    p++;
                    n++;
                } else if (p < tokens.length && tokens[p] == ANY) {
                    star = p++;
                    starMatch = n;
                } else if (star >= 0) {
                    p = star + 1;
                    n = ++starMatch;
                } else {
                    return false;
                }
            }
            while (p < tokens.length && tokens[p] == ANY) {
                p++;
            }
            return p == tokens.length;
        }

        private static int fold(int c) {
            return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
        }
    }
}
