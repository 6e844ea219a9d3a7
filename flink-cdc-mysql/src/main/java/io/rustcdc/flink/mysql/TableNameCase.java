package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
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

    private TableNameCase(int setting) {
        this.setting = setting;
    }

    static TableNameCase of(int lowerCaseTableNames) {
        return new TableNameCase(lowerCaseTableNames);
    }

    /** The server's {@code @@lower_case_table_names}. */
    static TableNameCase read(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@lower_case_table_names")) {
            return of(rs.next() ? rs.getInt(1) : 0);
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

    /** Lower case one character at a time, as the server folds names (no change of length, no locale). */
    static String lower(String name) {
        StringBuilder sb = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            sb.append(Character.toLowerCase(name.charAt(i)));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "lower_case_table_names=" + setting;
    }
}
