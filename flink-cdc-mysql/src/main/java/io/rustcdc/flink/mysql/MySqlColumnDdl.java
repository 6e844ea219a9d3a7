package io.rustcdc.flink.mysql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import javax.annotation.Nullable;

/**
 * What a CREATE TABLE or ALTER TABLE statement says of a table's columns and primary key, as
 * written: the columns it adds, drops, renames ({@code RENAME COLUMN a TO b}, {@code CHANGE a b ...})
 * and redefines, with the declared type and nullability each definition states and where it puts
 * the column, and the key it adds or drops. Clauses that cannot change the columns (indexes,
 * foreign keys, checks, defaults, table options) are read and left out. A clause this parser does
 * not read makes the whole statement {@link #unread} rather than half-read: nothing is told from it.
 */
final class MySqlColumnDdl {
    /** What one clause does. */
    enum Action {
        ADD,
        DROP,
        /** {@code RENAME COLUMN name TO newName}: the column keeps its definition. */
        RENAME,
        /** {@code CHANGE name newName def} or {@code MODIFY name def} (newName = name). */
        REDEFINE,
        ADD_KEY,
        DROP_KEY,
        /** {@code CONVERT TO CHARACTER SET name}: every text column the statement does not define to that set. */
        CONVERT
    }

    /** One clause that changes the columns or the key. */
    static final class Step {
        final Action action;
        /** The column the clause names (ADD: the new one); empty for the key. */
        final String name;
        /** RENAME and REDEFINE: the name after; else null. */
        @Nullable final String newName;
        @Nullable final ColumnDefinition definition;
        /** Where the column goes: null at the end (ADD) or where it was (REDEFINE), "" FIRST, else AFTER that column. */
        @Nullable final String after;
        /** {@code IF [NOT] EXISTS}: the clause may have done nothing. */
        final boolean conditional;
        /** ADD_KEY: the key's columns in order. */
        final List<String> key;

        Step(Action action, String name, @Nullable String newName, @Nullable ColumnDefinition definition,
                @Nullable String after, boolean conditional, List<String> key) {
            this.action = action;
            this.name = name;
            this.newName = newName;
            this.definition = definition;
            this.after = after;
            this.conditional = conditional;
            this.key = List.copyOf(key);
        }

        @Override
        public String toString() {
            switch (action) {
                case ADD:
                    return "ADD " + name + " " + definition + position();
                case DROP:
                    return "DROP " + name;
                case RENAME:
                    return "RENAME " + name + " TO " + newName;
                case REDEFINE:
                    return "REDEFINE " + name + " AS " + newName + " " + definition + position();
                case ADD_KEY:
                    return "ADD PRIMARY KEY " + key;
                case CONVERT:
                    return "CONVERT TO CHARACTER SET " + name;
                default:
                    return "DROP PRIMARY KEY";
            }
        }

        private String position() {
            return after == null ? "" : after.isEmpty() ? " FIRST" : " AFTER " + after;
        }
    }

    /** First words of ALTER TABLE clauses that change neither the columns nor the key, nor remove rows. */
    private static final Set<String> NO_COLUMNS = Set.of("ENGINE", "AUTO_INCREMENT", "COMMENT", "ROW_FORMAT", "ALGORITHM",
            "LOCK", "FORCE", "KEY_BLOCK_SIZE", "STATS_AUTO_RECALC", "STATS_PERSISTENT", "STATS_SAMPLE_PAGES", "DEFAULT",
            "CHARACTER", "CHARSET", "COLLATE", "CHECKSUM", "PAGE_CHECKSUM", "PACK_KEYS", "MAX_ROWS", "MIN_ROWS",
            "AVG_ROW_LENGTH", "DELAY_KEY_WRITE", "TRANSACTIONAL", "ENABLE", "DISABLE", "COMPRESSION", "ENCRYPTION",
            "TABLESPACE", "ORDER", "PARTITION", "COALESCE", "REORGANIZE", "ANALYZE", "CHECK", "OPTIMIZE", "REBUILD",
            "REPAIR", "REMOVE", "WITH", "WITHOUT", "NOWAIT", "WAIT");
    /** What may follow ADD or DROP and names no column: an index, a constraint, a partition. */
    private static final Set<String> NOT_A_COLUMN = Set.of("INDEX", "KEY", "FULLTEXT", "SPATIAL", "UNIQUE", "FOREIGN",
            "CHECK", "CONSTRAINT", "PRIMARY", "PARTITION", "SYSTEM", "PERIOD");

    /** The clauses that change the columns or key, in the statement's order; empty when none does. */
    final List<Step> steps;
    /** Why the statement cannot be read (the clause, quoted); null when it was. */
    @Nullable final String unread;

    private MySqlColumnDdl(List<Step> steps, @Nullable String unread) {
        this.steps = List.copyOf(steps);
        this.unread = unread;
    }

    /** The statement's clauses, when {@code sql} is an ALTER TABLE; unread otherwise. */
    static MySqlColumnDdl alter(String sql, SqlMode mode) {
        return read(sql, mode, MySqlColumnDdl::alter);
    }

    private static MySqlColumnDdl alter(List<String> tokens) {
        int at = afterTableName(tokens, "ALTER");
        if (at < 0) {
            return unread("not an ALTER TABLE statement");
        }
        List<Step> steps = new ArrayList<>();
        for (List<String> clause : split(tokens.subList(at, tokens.size()))) {
            String problem = alterClause(clause, steps);
            if (problem != null) {
                return unread(problem);
            }
        }
        return new MySqlColumnDdl(steps, null);
    }

    /**
     * The columns of a CREATE TABLE with a list of definitions, each an ADD in order, and its key;
     * unread for {@code CREATE TABLE ... LIKE} or {@code ... SELECT}, whose columns the statement does not list.
     */
    static MySqlColumnDdl create(String sql, SqlMode mode) {
        return read(sql, mode, MySqlColumnDdl::create);
    }

    /** A table rename's clauses: an {@code ALTER TABLE ... RENAME TO}'s, none of {@code RENAME TABLE}. */
    static MySqlColumnDdl renamed(String sql, SqlMode mode) {
        List<String> tokens = MySqlDdl.tokens(sql, mode);
        return !tokens.isEmpty() && upper(tokens.get(0)).equals("RENAME") ? new MySqlColumnDdl(List.of(), null)
                : alter(sql, mode);
    }

    private static MySqlColumnDdl read(String sql, SqlMode mode, Function<List<String>, MySqlColumnDdl> parser) {
        try {
            return parser.apply(MySqlDdl.tokens(sql, mode));
        } catch (IndexOutOfBoundsException truncated) {
            return unread("the statement ends inside a clause");
        }
    }

    private static MySqlColumnDdl create(List<String> tokens) {
        int at = afterTableName(tokens, "CREATE");
        if (at < 0 || at >= tokens.size() || !tokens.get(at).equals("(")) {
            return unread("the statement does not list the table's columns (CREATE TABLE ... LIKE or ... SELECT)");
        }
        int close = closing(tokens, at);
        for (int i = close + 1; i < tokens.size(); i++) {
            String t = upper(tokens.get(i));
            if (t.equals("SELECT") || t.equals("AS") || t.equals("LIKE") || t.equals("IGNORE") || t.equals("REPLACE")) {
                return unread("the table's rows and columns come from a query ('" + tokens.get(i) + " ...')");
            }
        }
        List<Step> steps = new ArrayList<>();
        for (List<String> definition : split(tokens.subList(at + 1, close))) {
            String first = upper(definition.get(0));
            if (first.equals("PRIMARY") || first.equals("CONSTRAINT") && definition.stream()
                    .anyMatch(t -> upper(t).equals("PRIMARY"))) {
                steps.add(key(definition));
            } else if (NOT_A_COLUMN.contains(first)) {
                continue;
            } else {
                Step add = column(Action.ADD, identifier(definition.get(0)), null, definition.subList(1, definition.size()),
                        false);
                if (add.after != null) {
                    return unread("'" + String.join(" ", definition) + "'");
                }
                steps.add(add);
            }
        }
        return new MySqlColumnDdl(steps, null);
    }

    private static MySqlColumnDdl unread(String why) {
        return new MySqlColumnDdl(List.of(), why);
    }

    /** Reads one ALTER clause into {@code steps}; returns why not when it cannot. */
    @Nullable
    private static String alterClause(List<String> c, List<Step> steps) {
        String first = upper(c.get(0));
        String second = c.size() > 1 ? upper(c.get(1)) : "";
        String quoted = "'" + String.join(" ", c) + "'";
        switch (first) {
            case "ADD": {
                if (second.equals("PRIMARY")
                        || second.equals("CONSTRAINT") && c.stream().anyMatch(t -> upper(t).equals("PRIMARY"))) {
                    steps.add(key(c.subList(1, c.size())));
                    return null;
                }
                if (second.equals("SYSTEM") || second.equals("PERIOD")) {
                    return quoted;
                }
                if (NOT_A_COLUMN.contains(second)) {
                    return null;
                }
                int at = second.equals("COLUMN") ? 2 : 1;
                if (at < c.size() && c.get(at).equals("(")) {
                    // ADD (a int, b int): each at the end, in order
                    int close = closing(c, at);
                    for (List<String> d : split(c.subList(at + 1, close))) {
                        Step add = column(Action.ADD, identifier(d.get(0)), null, d.subList(1, d.size()), false);
                        if (add.after != null) {
                            return quoted;
                        }
                        steps.add(add);
                    }
                    return null;
                }
                boolean conditional = accept(c, at, "IF", "NOT", "EXISTS");
                at += conditional ? 3 : 0;
                steps.add(column(Action.ADD, identifier(c.get(at)), null, c.subList(at + 1, c.size()), conditional));
                return null;
            }
            case "DROP": {
                if (second.equals("PRIMARY")
                        || (second.equals("INDEX") || second.equals("KEY") || second.equals("CONSTRAINT"))
                                && c.size() > 2 && identifier(c.get(2)).equalsIgnoreCase("PRIMARY")) {
                    steps.add(new Step(Action.DROP_KEY, "", null, null, null, false, List.of()));
                    return null;
                }
                if (second.equals("PARTITION") || second.equals("SYSTEM") || second.equals("PERIOD")) {
                    return quoted; // a dropped partition's rows go without row events
                }
                if (NOT_A_COLUMN.contains(second) || second.equals("DEFAULT")) {
                    return null;
                }
                int at = second.equals("COLUMN") ? 2 : 1;
                boolean conditional = accept(c, at, "IF", "EXISTS");
                at += conditional ? 2 : 0;
                if (at + 1 < c.size() && !upper(c.get(at + 1)).equals("RESTRICT") && !upper(c.get(at + 1)).equals("CASCADE")) {
                    return quoted;
                }
                steps.add(new Step(Action.DROP, identifier(c.get(at)), null, null, null, conditional, List.of()));
                return null;
            }
            case "RENAME":
                if (second.equals("COLUMN")) {
                    if (c.size() != 5 || !upper(c.get(3)).equals("TO")) {
                        return quoted;
                    }
                    steps.add(new Step(Action.RENAME, identifier(c.get(2)), identifier(c.get(4)), null, null, false,
                            List.of()));
                }
                return null; // an index's name, or the table's (MySqlDdl makes that a drop and a create)
            case "CHANGE":
            case "MODIFY": {
                int at = second.equals("COLUMN") ? 2 : 1;
                boolean conditional = accept(c, at, "IF", "EXISTS");
                at += conditional ? 2 : 0;
                String name = identifier(c.get(at));
                boolean change = first.equals("CHANGE");
                String newName = change ? identifier(c.get(at + 1)) : name;
                steps.add(column(Action.REDEFINE, name, newName, c.subList(at + (change ? 2 : 1), c.size()), conditional));
                return null;
            }
            case "ALTER": {
                // ALTER INDEX, CHECK or CONSTRAINT; ALTER [COLUMN] c SET DEFAULT, DROP DEFAULT, SET [IN]VISIBLE
                if (second.equals("INDEX") || second.equals("KEY") || second.equals("CHECK") || second.equals("CONSTRAINT")) {
                    return null;
                }
                int at = second.equals("COLUMN") ? 3 : 2;
                String what = c.size() > at + 1 ? upper(c.get(at + 1)) : "";
                boolean harmless = (accept(c, at, "SET") || accept(c, at, "DROP"))
                        && (what.equals("DEFAULT") || what.equals("VISIBLE") || what.equals("INVISIBLE"));
                return harmless ? null : quoted;
            }
            case "CONVERT": {
                // CONVERT TO CHARACTER SET x [COLLATE y]; DEFAULT (the database's set) and binary (text to bytes) unread
                int at = accept(c, 1, "TO", "CHARACTER", "SET") ? 4 : accept(c, 1, "TO", "CHARSET") ? 3 : -1;
                String set = at > 0 && at < c.size() ? identifier(c.get(at)).toLowerCase(java.util.Locale.ROOT) : "";
                if (set.isEmpty() || set.equals("default") || set.equals("binary") || set.startsWith("'")) {
                    return quoted;
                }
                steps.add(new Step(Action.CONVERT, set, null, null, null, false, List.of()));
                return null;
            }
            default:
                return NO_COLUMNS.contains(first) ? null : quoted;
        }
    }

    /** {@code [CONSTRAINT [name]] PRIMARY KEY [USING ...] (a, b(10) DESC) ...}: the key's column names. */
    private static Step key(List<String> c) {
        int at = 0;
        while (!c.get(at).equals("(")) {
            at++;
        }
        List<String> key = new ArrayList<>();
        for (List<String> part : split(c.subList(at + 1, closing(c, at)))) {
            key.add(identifier(part.get(0)));
        }
        return new Step(Action.ADD_KEY, "", null, null, null, false, key);
    }

    /** A column's definition (type, attributes, position) after its name(s). */
    private static Step column(Action action, String name, @Nullable String newName, List<String> d, boolean conditional) {
        ColumnDefinition definition = ColumnDefinition.read(d);
        return new Step(action, name, newName, definition, definition.after, conditional, List.of());
    }

    /** The index just after {@code ALTER|CREATE ... TABLE [IF [NOT] EXISTS] [db.]name}; -1 when not such a statement. */
    private static int afterTableName(List<String> tokens, String verb) {
        int at = 0;
        if (tokens.isEmpty() || !upper(tokens.get(at++)).equals(verb)) {
            return -1;
        }
        while (at < tokens.size() && !upper(tokens.get(at)).equals("TABLE")) {
            String t = upper(tokens.get(at++));
            if (!t.equals("ONLINE") && !t.equals("IGNORE") && !t.equals("OR") && !t.equals("REPLACE")) {
                return -1;
            }
        }
        at++;
        if (accept(tokens, at, "IF", "NOT", "EXISTS")) {
            at += 3;
        } else if (accept(tokens, at, "IF", "EXISTS")) {
            at += 2;
        }
        at++;
        if (at < tokens.size() && tokens.get(at).equals(".")) {
            at += 2;
        }
        return at <= tokens.size() ? at : -1;
    }

    /** {@code tokens} split at the commas outside parentheses; empty parts left out. */
    private static List<List<String>> split(List<String> tokens) {
        List<List<String>> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= tokens.size(); i++) {
            String t = i < tokens.size() ? tokens.get(i) : ",";
            if (t.equals("(")) {
                depth++;
            } else if (t.equals(")")) {
                depth--;
            } else if (t.equals(",") && depth == 0) {
                if (i > start) {
                    parts.add(tokens.subList(start, i));
                }
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new IndexOutOfBoundsException("unbalanced parentheses");
        }
        return parts;
    }

    /** The index of the parenthesis that closes the one at {@code open}. */
    static int closing(List<String> tokens, int open) {
        int depth = 0;
        for (int i = open; i < tokens.size(); i++) {
            if (tokens.get(i).equals("(")) {
                depth++;
            } else if (tokens.get(i).equals(")") && --depth == 0) {
                return i;
            }
        }
        throw new IndexOutOfBoundsException("unclosed parenthesis");
    }

    private static boolean accept(List<String> tokens, int at, String... words) {
        for (int i = 0; i < words.length; i++) {
            if (at + i >= tokens.size() || !upper(tokens.get(at + i)).equals(words[i])) {
                return false;
            }
        }
        return true;
    }

    private static String identifier(String token) {
        return MySqlDdl.identifier(token);
    }

    private static String upper(String token) {
        return MySqlDdl.upper(token);
    }

    @Override
    public String toString() {
        return unread != null ? "unread: " + unread : steps.toString();
    }
}
