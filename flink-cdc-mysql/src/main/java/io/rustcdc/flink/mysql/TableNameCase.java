package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import javax.annotation.Nullable;

/**
 * Which table a statement's names stand for, by the server's {@code lower_case_table_names}: with 0
 * names are as spelled (case-sensitive); with 1 the server stores and looks names up in lower case, so
 * {@code ALTER TABLE Orders} changes {@code orders}, the name the catalogue and the table maps use; with
 * 2 it stores them as created and compares them in lower case, so a statement names the captured table
 * whose names equal its own but for case (as spelled where no captured table does).
 */
final class TableNameCase {
    private final int setting;
    /** The server's lower case of a name holding characters beyond ASCII. */
    private final Function<String, String> serverLower;
    private final Map<String, String> folded = new HashMap<>();

    private TableNameCase(int setting, Function<String, String> serverLower) {
        this.setting = setting;
        this.serverLower = serverLower;
    }

    static TableNameCase of(int lowerCaseTableNames, Function<String, String> serverLower) {
        return new TableNameCase(lowerCaseTableNames, serverLower);
    }

    /**
     * The server's {@code @@lower_case_table_names}, with {@code c} to fold names beyond ASCII as the server
     * does: by {@code utf8mb3_general_ci}'s case table (its {@code files_charset_info}), older than Java's,
     * which lowercases characters it leaves alone (U+1E9E, most of Cyrillic from U+0500, Georgian, ...).
     */
    static TableNameCase read(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@lower_case_table_names")) {
            return of(rs.next() ? rs.getInt(1) : 0, name -> serverLower(c, name));
        }
    }

    private static String serverLower(Connection c, String name) {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT LOWER(CONVERT(? USING utf8mb3) COLLATE utf8mb3_general_ci)")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new CdcException(CdcException.Kind.CONNECTION, "Could not ask the server how it folds the table "
                    + "name " + name + " (lower_case_table_names): " + e.getMessage(), e);
        }
    }

    /**
     * The table {@code named} (as a statement spells it) is.
     *
     * @param captured the tables the source captures, for {@code lower_case_table_names} = 2; null when not known
     */
    TableId resolve(TableId named, @Nullable Set<TableId> captured) {
        if (setting == 1) {
            String database = lower(named.database());
            return TableId.of(database, database, lower(named.table()));
        }
        if (setting == 2 && captured != null && !captured.contains(named)) {
            for (TableId table : captured) {
                if (lower(table.database()).equals(lower(named.database()))
                        && lower(table.table()).equals(lower(named.table()))) {
                    return table;
                }
            }
        }
        return named;
    }

    /** Lower case as the server folds names: ASCII here, the rest by the server (asked once per name). */
    String lower(String name) {
        if (name.chars().allMatch(ch -> ch < 0x80)) {
            return name.toLowerCase(Locale.ROOT);
        }
        return folded.computeIfAbsent(name, serverLower);
    }

    @Override
    public String toString() {
        return "lower_case_table_names=" + setting;
    }
}
