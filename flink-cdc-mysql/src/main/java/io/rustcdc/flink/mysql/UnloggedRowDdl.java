package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;

/**
 * ALTER TABLE statements that change a table's rows without logging them as rows: {@code TRUNCATE PARTITION},
 * {@code DROP PARTITION}, {@code EXCHANGE PARTITION ... WITH TABLE} (both tables), {@code DISCARD|IMPORT
 * [PARTITION ...] TABLESPACE} and MariaDB's {@code CONVERT PARTITION ... TO TABLE} and {@code CONVERT TABLE ... TO
 * PARTITION} (both tables). Such a statement on a captured table fails the stream ({@link BinlogStatements}),
 * whatever the schema-changes policy. The partition clauses that keep the rows (ADD, REORGANIZE, COALESCE, REBUILD,
 * OPTIMIZE, ANALYZE, CHECK, REPAIR PARTITION, REMOVE PARTITIONING, PARTITION BY) are none of these.
 */
final class UnloggedRowDdl {
    /** What such a statement does: the clause, as written, and the tables whose rows it changes. */
    static final class Found {
        final String clause;
        final List<TableId> tables;

        Found(String clause, List<TableId> tables) {
            this.clause = clause;
            this.tables = List.copyOf(tables);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder(clause);
            for (TableId t : tables) {
                sb.append(" | ").append(t.database()).append('.').append(t.table());
            }
            return sb.toString();
        }
    }

    private UnloggedRowDdl() {}

    /** What the statement does, when it is one of these; null otherwise. */
    @Nullable
    static Found read(String sql, @Nullable String database, SqlMode mode) {
        List<MySqlDdl.Change> changes = MySqlDdl.parse(sql, database, mode);
        if (changes.isEmpty() || changes.get(0).kind != MySqlDdl.Kind.ALTER_TABLE) {
            return null; // a RENAME in the statement makes it a drop and a create: no partition clause goes with it
        }
        List<String> tokens = MySqlDdl.tokens(sql, mode);
        String db = database == null ? "" : database;
        try {
            for (int at = clauses(tokens); at < tokens.size(); at = next(tokens, at)) {
                String first = MySqlDdl.upper(tokens.get(at));
                String second = at + 1 < tokens.size() ? MySqlDdl.upper(tokens.get(at + 1)) : "";
                List<TableId> tables = new ArrayList<>(List.of(changes.get(0).table));
                if ((first.equals("TRUNCATE") || first.equals("DROP")) && second.equals("PARTITION")) {
                    return new Found(first + " PARTITION", tables);
                }
                // DISCARD|IMPORT [PARTITION p0, p1] TABLESPACE: its list of partitions has commas
                if ((first.equals("DISCARD") || first.equals("IMPORT")) && tokens.subList(at, tokens.size()).stream()
                        .anyMatch(t -> MySqlDdl.upper(t).equals("TABLESPACE"))) {
                    return new Found(first + (second.equals("PARTITION") ? " PARTITION" : "") + " TABLESPACE", tables);
                }
                if (first.equals("EXCHANGE") || first.equals("CONVERT") && !second.equals("TO")) {
                    // EXCHANGE PARTITION p WITH TABLE t2; CONVERT PARTITION p TO TABLE t2; CONVERT TABLE t2 TO PARTITION p
                    int name = second.equals("TABLE") ? at + 2 : afterTable(tokens, at);
                    tables.add(name(tokens, name, db));
                    return new Found(first + " " + second, tables);
                }
            }
        } catch (IndexOutOfBoundsException truncated) {
            return null;
        }
        return null;
    }

    /** The index of the first clause: after {@code ALTER [ONLINE] [IGNORE] TABLE [IF EXISTS] [db.]name}. */
    private static int clauses(List<String> tokens) {
        int at = 0;
        while (!MySqlDdl.upper(tokens.get(at)).equals("TABLE")) {
            at++;
        }
        at++;
        if (MySqlDdl.upper(tokens.get(at)).equals("IF")) {
            at += 2;
        }
        at++;
        return at < tokens.size() && tokens.get(at).equals(".") ? at + 2 : at;
    }

    /** The index after the clause at {@code at}: past its comma at depth 0, or the end. */
    private static int next(List<String> tokens, int at) {
        int depth = 0;
        for (int i = at; i < tokens.size(); i++) {
            String t = tokens.get(i);
            if (t.equals("(")) {
                depth++;
            } else if (t.equals(")")) {
                depth--;
            } else if (t.equals(",") && depth == 0) {
                return i + 1;
            }
        }
        return tokens.size();
    }

    /** The index after the words {@code ... TABLE} from {@code at}. */
    private static int afterTable(List<String> tokens, int at) {
        int i = at;
        while (!MySqlDdl.upper(tokens.get(i)).equals("TABLE")) {
            i++;
        }
        return i + 1;
    }

    /** {@code [db.]name} at {@code at}: an unqualified name is of the statement's default database. */
    private static TableId name(List<String> tokens, int at, String database) {
        String first = MySqlDdl.identifier(tokens.get(at));
        if (at + 1 < tokens.size() && tokens.get(at + 1).equals(".")) {
            String db = first;
            return TableId.of(db, db, MySqlDdl.identifier(tokens.get(at + 2)));
        }
        return TableId.of(database, database, first);
    }
}
