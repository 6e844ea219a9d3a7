package io.rustcdc.flink.source.filter;

import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Which tables a source captures: include and exclude lists of case-insensitive glob patterns,
 * matched against {@code schema.table} (for MySQL, {@code database.table}), or against the bare
 * table name when a table has no schema. Every path that emits an event for a table (rows,
 * snapshots, schema changes) asks this one matcher.
 *
 * <ul>
 *   <li>{@code *} matches any run of characters and {@code ?} exactly one, neither across the
 *       dot between schema and table: {@code *.*} spans it.
 *   <li>A pattern with a dot is qualified: it never matches a table without a schema.
 *   <li>A pattern without a dot names a table in any schema, or a bare table; so {@code *} alone
 *       matches everything. {@link #unqualifiedIncludes()} lists such include entries, since
 *       they widen an allowlist.
 *   <li>Blank entries are ignored. Case folding is ASCII only.
 *   <li>A non-empty include list decides alone; the exclude list applies only when the include
 *       list is empty. Both empty: every table.
 * </ul>
 *
 * <pre>{@code
 * TableFilter filter = TableFilter.of(List.of("public.*"), List.of("public.tmp_*"));
 * filter.matches(TableId.of("shop", "public", "orders")); // true
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
@PublicEvolving
public final class TableFilter implements Serializable {
    private static final long serialVersionUID = 1L;

    private final List<Pattern> includes;
    private final List<Pattern> excludes;
    /** The one table {@link #only} captures; null for a filter of patterns. */
    @Nullable private final TableId only;

    private TableFilter(List<Pattern> includes, List<Pattern> excludes, @Nullable TableId only) {
        this.includes = includes;
        this.excludes = excludes;
        this.only = only;
    }

    public static TableFilter of(List<String> include, List<String> exclude) {
        return new TableFilter(parse(include), parse(exclude), null);
    }

    /**
     * A filter that captures {@code table} alone: its schema and name as they are (case included), not read as a
     * pattern. A pattern made of its names would not do: an entry is split at its first dot (a dot in a schema's
     * name), its ends are trimmed, and {@code *} and {@code ?} have no escape.
     */
    public static TableFilter only(TableId table) {
        return new TableFilter(List.of(), List.of(), Objects.requireNonNull(table));
    }

    /** A filter that captures every table. */
    public static TableFilter all() {
        return new TableFilter(List.of(), List.of(), null);
    }

    public boolean matches(TableId table) {
        return matches(table.schema(), table.table());
    }

    /** Whether the table {@code schema.table} (or bare {@code table} when schema is null) is captured. */
    public boolean matches(@Nullable String schema, String table) {
        if (only != null) {
            return Objects.equals(only.schema(), schema) && only.table().equals(table);
        }
        if (!includes.isEmpty()) {
            return anyMatches(includes, schema, table);
        }
        return !anyMatches(excludes, schema, table);
    }

    /** The include entries without a schema part, which capture a table name in every schema. */
    public List<String> unqualifiedIncludes() {
        List<String> result = new ArrayList<>();
        for (Pattern p : includes) {
            if (p.schema == null) {
                result.add(p.text);
            }
        }
        return result;
    }

    /** The include entries as given, blanks removed. */
    public List<String> includes() {
        return texts(includes);
    }

    /** The exclude entries as given, blanks removed. */
    public List<String> excludes() {
        return texts(excludes);
    }

    private static List<String> texts(List<Pattern> patterns) {
        List<String> result = new ArrayList<>();
        for (Pattern p : patterns) {
            result.add(p.text);
        }
        return result;
    }

    private static boolean anyMatches(List<Pattern> patterns, @Nullable String schema, String table) {
        for (Pattern p : patterns) {
            if (p.matches(schema, table)) {
                return true;
            }
        }
        return false;
    }

    private static List<Pattern> parse(List<String> entries) {
        List<Pattern> patterns = new ArrayList<>();
        for (String entry : entries) {
            if (entry != null && !entry.isBlank()) {
                patterns.add(new Pattern(entry.trim()));
            }
        }
        return List.copyOf(patterns);
    }

    @Override
    public String toString() {
        return only != null ? "TableFilter{only=" + only + "}"
                : "TableFilter{include=" + includes() + ", exclude=" + excludes() + "}";
    }

    /** One glob entry, split at its first dot into a schema part and a table part. */
    private static final class Pattern implements Serializable {
        private static final long serialVersionUID = 1L;

        final String text;
        @Nullable final String schema;
        final String table;

        Pattern(String text) {
            this.text = text;
            String folded = fold(text);
            int dot = folded.indexOf('.');
            this.schema = dot < 0 ? null : folded.substring(0, dot);
            this.table = dot < 0 ? folded : folded.substring(dot + 1);
        }

        boolean matches(@Nullable String schemaName, String tableName) {
            if (schema == null) {
                return glob(table, fold(tableName));
            }
            return schemaName != null && glob(schema, fold(schemaName)) && glob(table, fold(tableName));
        }

        /** ASCII lower case: what every supported server's identifier folding is defined in. */
        private static String fold(String s) {
            boolean hasUpper = false;
            for (int i = 0; i < s.length() && !hasUpper; i++) {
                hasUpper = s.charAt(i) >= 'A' && s.charAt(i) <= 'Z';
            }
            if (!hasUpper) {
                return s;
            }
            char[] chars = s.toCharArray();
            for (int i = 0; i < chars.length; i++) {
                char c = chars[i];
                if (c >= 'A' && c <= 'Z') {
                    chars[i] = (char) (c + ('a' - 'A'));
                }
            }
            return new String(chars);
        }

        /** Iterative glob match with backtracking to the last star: linear in practice. */
        private static boolean glob(String pattern, String name) {
            int p = 0;
            int n = 0;
            int star = -1;
            int starMatch = 0;
            while (n < name.length()) {
                // a star first: a '*' in the name must not be taken for the pattern's literal character
                if (p < pattern.length() && pattern.charAt(p) == '*') {
                    star = p++;
                    starMatch = n;
                } else if (p < pattern.length() && (pattern.charAt(p) == '?' || pattern.charAt(p) == name.charAt(n))) {
                    p++;
                    n++;
                } else if (star >= 0) {
                    p = star + 1;
                    n = ++starMatch;
                } else {
                    return false;
                }
            }
            while (p < pattern.length() && pattern.charAt(p) == '*') {
                p++;
            }
            return p == pattern.length();
        }
    }
}
