package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import javax.annotation.Nullable;

/**
 * Which tables a statement of the binlog creates, alters, drops, renames or truncates, and how: just
 * enough of MySQL's DDL to name them (quoted identifiers, comments, {@code IF [NOT] EXISTS}, lists of
 * tables), never the columns, whose exact types come from the catalogue. Temporary tables are not
 * logged as rows, so statements on them are none of these.
 */
final class MySqlDdl {
    /** What a statement does to one table: a schema change, or a truncation (which is none). */
    enum Kind {
        CREATE_TABLE(DdlType.CREATE_TABLE),
        ALTER_TABLE(DdlType.ALTER_TABLE),
        DROP_TABLE(DdlType.DROP_TABLE),
        TRUNCATE_TABLE(null);

        @Nullable private final DdlType schemaChange;

        Kind(@Nullable DdlType schemaChange) {
            this.schemaChange = schemaChange;
        }

        /** The schema change this is; a truncation is none and is emitted as {@code Op.TRUNCATE}. */
        DdlType schemaChange() {
            if (schemaChange == null) {
                throw new IllegalStateException(this + " is no schema change");
            }
            return schemaChange;
        }
    }

    /** One table a statement changes, and how. */
    static final class Change {
        final Kind kind;
        final TableId table;
        /** For the CREATE_TABLE side of a rename: the table's old name; null otherwise. */
        @Nullable final TableId renamedFrom;
        /** CREATE TABLE IF NOT EXISTS, which the server logs even when the table existed. */
        final boolean ifNotExists;
        /** MariaDB's CREATE OR REPLACE TABLE. */
        final boolean orReplace;
        /** How the statement reads (its columns too). */
        final SqlMode mode;

        Change(Kind kind, TableId table, @Nullable TableId renamedFrom, boolean ifNotExists, boolean orReplace,
                SqlMode mode) {
            this.kind = kind;
            this.table = table;
            this.renamedFrom = renamedFrom;
            this.ifNotExists = ifNotExists;
            this.orReplace = orReplace;
            this.mode = mode;
        }

        /** This change with its table names as {@code names} gives them. */
        Change named(UnaryOperator<TableId> names) {
            return new Change(kind, names.apply(table), renamedFrom == null ? null : names.apply(renamedFrom),
                    ifNotExists, orReplace, mode);
        }

        @Override
        public String toString() {
            return kind + " " + table.database() + "." + table.table();
        }
    }

    private final List<String> tokens;
    private final String database;
    private final SqlMode mode;
    private int at;

    private MySqlDdl(String sql, @Nullable String database, SqlMode mode) {
        this.tokens = tokens(sql, mode);
        this.database = database == null ? "" : database;
        this.mode = mode;
    }

    /**
     * The tables {@code sql} changes, in order; empty for any other statement. A rename is the old
     * name dropped and the new one created.
     *
     * @param database the statement's default database, for unqualified names
     * @param mode the {@code sql_mode} of the session that ran it
     */
    static List<Change> parse(String sql, @Nullable String database, SqlMode mode) {
        MySqlDdl p = new MySqlDdl(sql, database, mode);
        try {
            return p.statement();
        } catch (IndexOutOfBoundsException truncated) {
            return List.of();
        }
    }

    /** What a data-changing statement names: {@link #NOT_DML}, or the one table it changes, or null when unsure. */
    static final TableId NOT_DML = TableId.of("", "", "");

    /**
     * For a statement-logged change (a session's {@code binlog_format} other than ROW): the table an
     * INSERT, REPLACE, UPDATE, DELETE, LOAD DATA or CREATE TABLE ... SELECT changes, null when it may change several
     * or its table cannot be read (one beginning with WITH; a SELECT, DO or {@code SET @var}, which the server logs
     * only when a stored function it calls changed data), and {@link #NOT_DML} for any other statement.
     */
    @Nullable
    static TableId dmlTable(String sql, @Nullable String database, SqlMode mode) {
        MySqlDdl p = new MySqlDdl(sql, database, mode);
        try {
            return p.dml();
        } catch (IndexOutOfBoundsException truncated) {
            return null;
        }
    }

    @Nullable
    private TableId dml() {
        if (accept("INSERT") || accept("REPLACE")) {
            skipAll("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "INTO");
            return name();
        }
        if (accept("UPDATE")) {
            skipAll("LOW_PRIORITY", "IGNORE");
            TableId table = name();
            return singleTable("SET") ? table : null;
        }
        if (accept("DELETE")) {
            skipAll("LOW_PRIORITY", "QUICK", "IGNORE");
            if (!accept("FROM")) {
                return null; // DELETE t1, t2 FROM ...: several tables
            }
            TableId table = name();
            return singleTable("WHERE") ? table : null;
        }
        if (accept("LOAD")) {
            for (; at < tokens.size(); at++) {
                if (accept("INTO", "TABLE")) {
                    return name();
                }
            }
            return null;
        }
        if (accept("CREATE")) {
            return createSelect();
        }
        if (accept("WITH") || accept("SELECT") || accept("DO") || accept("(")
                || accept("SET") && at < tokens.size() && tokens.get(at).startsWith("@")) {
            return null;
        }
        return NOT_DML;
    }

    /**
     * After CREATE: the table a {@code CREATE TABLE ... SELECT} fills, whose rows a statement-logged one does not
     * log (row logging logs the CREATE without its query, then the rows), else {@link #NOT_DML}.
     */
    private TableId createSelect() {
        accept("OR", "REPLACE");
        accept("TEMPORARY");
        if (!accept("TABLE")) {
            return NOT_DML;
        }
        accept("IF", "NOT", "EXISTS");
        TableId table = name();
        for (; at < tokens.size(); at++) {
            if (upper(tokens.get(at)).equals("SELECT")) {
                return table; // a query (WITH ... SELECT, (SELECT ...) too): no definition holds one; LIKE copies no rows
            }
        }
        return NOT_DML;
    }

    private void skipAll(String... words) {
        boolean skipped = true;
        while (skipped) {
            skipped = false;
            for (String w : words) {
                skipped |= accept(w);
            }
        }
    }

    /** Whether no other table joins before {@code until} (or the end): no comma, JOIN or USING at depth 0. */
    private boolean singleTable(String until) {
        int depth = 0;
        for (; at < tokens.size(); at++) {
            String t = upper(tokens.get(at));
            if (t.equals("(")) {
                depth++;
            } else if (t.equals(")")) {
                depth--;
            } else if (depth == 0 && t.equals(until)) {
                return true;
            } else if (depth == 0 && (t.equals(",") || t.equals("JOIN") || t.equals("USING"))) {
                return false;
            }
        }
        return true;
    }

    private List<Change> statement() {
        List<Change> changes = new ArrayList<>();
        if (accept("CREATE")) {
            boolean orReplace = accept("OR", "REPLACE");
            if (accept("TABLE")) {
                boolean ifNotExists = accept("IF", "NOT", "EXISTS");
                changes.add(new Change(Kind.CREATE_TABLE, name(), null, ifNotExists, orReplace, mode));
            }
        } else if (accept("ALTER")) {
            accept("ONLINE");
            accept("IGNORE");
            if (accept("TABLE")) {
                accept("IF", "EXISTS");
                TableId table = name();
                TableId renamed = renameInAlter();
                if (renamed == null) {
                    changes.add(change(Kind.ALTER_TABLE, table, null));
                } else {
                    changes.add(change(Kind.DROP_TABLE, table, null));
                    changes.add(change(Kind.CREATE_TABLE, renamed, table));
                }
            }
        } else if (accept("DROP")) {
            if (accept("TABLE")) {
                accept("IF", "EXISTS");
                do {
                    changes.add(change(Kind.DROP_TABLE, name(), null));
                } while (accept(","));
            }
        } else if (accept("RENAME")) {
            if (accept("TABLE")) {
                do {
                    TableId from = name();
                    accept("TO");
                    changes.add(change(Kind.DROP_TABLE, from, null));
                    changes.add(change(Kind.CREATE_TABLE, name(), from));
                } while (accept(","));
            }
        } else if (accept("TRUNCATE")) {
            accept("TABLE");
            changes.add(change(Kind.TRUNCATE_TABLE, name(), null));
        }
        return changes;
    }

    private Change change(Kind kind, TableId table, @Nullable TableId renamedFrom) {
        return new Change(kind, table, renamedFrom, false, false, mode);
    }

    /** {@code ALTER TABLE t ..., RENAME [TO|AS] t2}: the new name, or null. RENAME COLUMN/INDEX/KEY is no rename. */
    @Nullable
    private TableId renameInAlter() {
        int depth = 0;
        for (; at < tokens.size(); at++) {
            String t = tokens.get(at);
            if (t.equals("(")) {
                depth++;
            } else if (t.equals(")")) {
                depth--;
            } else if (depth == 0 && upper(t).equals("RENAME") && at + 1 < tokens.size()) {
                String next = upper(tokens.get(at + 1));
                if (next.equals("COLUMN") || next.equals("INDEX") || next.equals("KEY") || next.equals("CONSTRAINT")) {
                    continue;
                }
                at++;
                if (upper(tokens.get(at)).equals("TO") || upper(tokens.get(at)).equals("AS")) {
                    at++;
                }
                return name();
            }
        }
        return null;
    }

    private TableId name() {
        String first = identifier(tokens.get(at++));
        if (at < tokens.size() && tokens.get(at).equals(".")) {
            at++;
            String table = identifier(tokens.get(at++));
            return TableId.of(first, first, table);
        }
        return TableId.of(database, database, first);
    }

    /** Consumes {@code words} when they come next (case-insensitively), all or none. */
    private boolean accept(String... words) {
        for (int i = 0; i < words.length; i++) {
            if (at + i >= tokens.size() || !upper(tokens.get(at + i)).equals(words[i])) {
                return false;
            }
        }
        at += words.length;
        return true;
    }

    static String identifier(String token) {
        return token.startsWith("`") ? token.substring(1, token.length() - 1).replace("``", "`") : token;
    }

    static String upper(String token) {
        return token.startsWith("`") ? token : token.toUpperCase(Locale.ROOT);
    }

    /** {@link #tokens(String, SqlMode)} of text that is no session's statement: in {@link SqlMode#PLAIN}. */
    static List<String> tokens(String sql) {
        return tokens(sql, SqlMode.PLAIN);
    }

    /**
     * Words, `quoted identifiers`, 'strings' and single punctuation; comments dropped, but for the text of
     * executable ones ({@link #executableText}), read as code. A word is a run of
     * the characters MySQL allows in an unquoted name: ASCII letters, digits, {@code $} and {@code _}, and
     * every character from U+0080 on (combining marks, symbols and spaces beyond ASCII included). Under
     * {@code ANSI_QUOTES} a "double-quoted name" becomes the `backquoted` token of the same name, else it
     * is a string; in a string a backslash escapes the next character unless {@code NO_BACKSLASH_ESCAPES}.
     */
    static List<String> tokens(String sql, SqlMode mode) {
        List<String> tokens = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        boolean executable = false;
        while (i < n) {
            char c = sql.charAt(i);
            if (isSpace(c)) {
                i++;
            } else if (executable && sql.startsWith("*/", i)) {
                executable = false; // the end of an executable comment, whose text was read as the statement's
                i += 2;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int code = executableText(sql, i);
                executable = code > 0;
                int end = sql.indexOf("*/", i + 2);
                i = executable ? code : end < 0 ? n : end + 2;
            } else if ((c == '-' && sql.startsWith("-- ", i)) || c == '#') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (c == '`' || c == '\'' || c == '"') {
                boolean name = c == '`' || c == '"' && mode.ansiQuotes;
                int j = i + 1;
                while (j < n) {
                    if (!name && mode.backslashEscapes && sql.charAt(j) == '\\') {
                        j += 2; // an escaped character, a quote too
                    } else if (sql.charAt(j) == c && j + 1 < n && sql.charAt(j + 1) == c) {
                        j += 2; // a doubled quote stands for one
                    } else if (sql.charAt(j) == c) {
                        break;
                    } else {
                        j++;
                    }
                }
                String token = sql.substring(i, Math.min(j + 1, n));
                tokens.add(c == '"' && name ? backquoted(token) : token);
                i = j + 1;
            } else if (isNameChar(c)) {
                int j = i;
                while (j < n && isNameChar(sql.charAt(j))) {
                    j++;
                }
                tokens.add(sql.substring(i, j));
                i = j;
            } else {
                tokens.add(String.valueOf(c));
                i++;
            }
        }
        return tokens;
    }

    /**
     * Where the text of an executable comment starting at {@code i} begins ({@code /*!} or MariaDB's {@code
     * /*M!}, then a version, as in {@code DROP /*!40005 TEMPORARY *&#47; TABLE}, which the servers log when a
     * session with temporary tables ends): the servers run that text as part of the statement; -1 for
     * another comment. The version is taken as one the server has: dumps and servers write versions up to
     * their own.
     */
    private static int executableText(String sql, int i) {
        int j = sql.startsWith("/*!", i) ? i + 3 : sql.startsWith("/*M!", i) ? i + 4 : -1;
        while (j > 0 && j < sql.length() && sql.charAt(j) >= '0' && sql.charAt(j) <= '9') {
            j++;
        }
        return j;
    }

    /** A character of an unquoted name: {@code [0-9a-zA-Z$_]} and U+0080 .. U+FFFF (MySQL's "Schema Object Names"). */
    private static boolean isNameChar(char c) {
        return c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '$' || c == '_';
    }

    /** The server's white space between tokens: ASCII's only (a space beyond ASCII is part of a name). */
    private static boolean isSpace(char c) {
        return c == ' ' || c >= '\t' && c <= '\r';
    }

    /** A double-quoted name ({@code ANSI_QUOTES}) as the backquoted token of the same name. */
    private static String backquoted(String doubleQuoted) {
        int end = doubleQuoted.length() > 1 && doubleQuoted.endsWith("\"") ? doubleQuoted.length() - 1 : doubleQuoted.length();
        String name = doubleQuoted.substring(1, end).replace("\"\"", "\"");
        return "`" + name.replace("`", "``") + "`";
    }
}
