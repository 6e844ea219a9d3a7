package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What the source does with captured tables whose foreign keys cascade (option {@code
 * foreign-key-cascades}). The server does not write to the binlog the changes InnoDB makes for an
 * {@code ON DELETE} or {@code ON UPDATE} action ({@code CASCADE}, {@code SET NULL}, {@code SET
 * DEFAULT}), so a stream cannot see them: by default the source refuses such tables.
 */
@PublicEvolving
public enum ForeignKeyCascades {
    /** Fail at the start naming each cascading key of a captured table. The default. */
    REFUSE,
    /** Capture the tables, knowing that the changes their cascades make are missing. */
    ACCEPT;

    /** The option's value: {@code refuse} or {@code accept}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * With {@link #REFUSE}, fails naming every key of {@code tables} whose action changes them
     * unlogged. Read from {@code SHOW CREATE TABLE}: MariaDB shows {@code REFERENTIAL_CONSTRAINTS}
     * only to users with more than SELECT, and a check that sees nothing would pass.
     */
    void check(Connection c, List<TableId> tables) throws SQLException {
        if (this == ACCEPT) {
            return;
        }
        List<String> cascading = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_quote_show_create = 1"); // the names the pattern below reads are quoted
        }
        for (TableId table : tables) {
            String ddl;
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + MySqlSql.qualified(table))) {
                if (!rs.next()) {
                    continue;
                }
                ddl = rs.getString(2);
            }
            cascading.addAll(cascadingKeys(table, ddl));
        }
        if (!cascading.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The server does not write to the binlog the "
                    + "changes a foreign key's action makes, so this source would miss them in: "
                    + String.join("; ", cascading) + ". Make these keys RESTRICT or NO ACTION and change the rows "
                    + "explicitly, exclude the tables, or set '" + MySqlSourceConfig.FOREIGN_KEY_CASCADES + "' = '"
                    + ACCEPT + "' to capture them knowing those changes are missing.");
        }
    }

    /** The keys of {@code table}'s {@code SHOW CREATE TABLE} text whose actions change its rows, described. */
    static List<String> cascadingKeys(TableId table, String ddl) {
        List<String> cascading = new ArrayList<>();
        Matcher key = FOREIGN_KEY.matcher(ddl);
        while (key.find()) {
            String actions = actions(key.group(4), key.group(5));
            if (!actions.isEmpty()) {
                String referenced = key.group(2) != null ? unquote(key.group(2)) : table.database();
                cascading.add(table.database() + "." + table.table() + " (key " + unquote(key.group(1)) + " to "
                        + referenced + "." + unquote(key.group(3)) + ": " + actions + ")");
            }
        }
        return cascading;
    }

    private static String unquote(String name) {
        return name.replace("``", "`");
    }

    /** A key of SHOW CREATE TABLE: name, referenced database (when another), table, ON DELETE and ON UPDATE actions. */
    private static final Pattern FOREIGN_KEY = Pattern.compile("CONSTRAINT `((?:[^`]|``)+)` FOREIGN KEY \\([^)]*\\) "
            + "REFERENCES (?:`((?:[^`]|``)+)`\\.)?`((?:[^`]|``)+)` \\([^)]*\\)"
            + "(?: ON DELETE (RESTRICT|CASCADE|SET NULL|NO ACTION|SET DEFAULT))?"
            + "(?: ON UPDATE (RESTRICT|CASCADE|SET NULL|NO ACTION|SET DEFAULT))?");

    private static String actions(@Nullable String onDelete, @Nullable String onUpdate) {
        List<String> unlogged = new ArrayList<>();
        if (changesRows(onDelete)) {
            unlogged.add("ON DELETE " + onDelete);
        }
        if (changesRows(onUpdate)) {
            unlogged.add("ON UPDATE " + onUpdate);
        }
        return String.join(", ", unlogged);
    }

    /** An absent action is RESTRICT. */
    private static boolean changesRows(@Nullable String rule) {
        return rule != null && !"RESTRICT".equalsIgnoreCase(rule) && !"NO ACTION".equalsIgnoreCase(rule);
    }
}
