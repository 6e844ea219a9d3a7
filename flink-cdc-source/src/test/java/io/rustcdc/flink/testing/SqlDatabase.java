package io.rustcdc.flink.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A test's own database on a shared server, and the statements every connector's tests run on it as
 * the server's administrator. Each connector's subclass adds its server's users and connections.
 */
public abstract class SqlDatabase {
    private final String name;

    protected SqlDatabase(String name) {
        this.name = name;
    }

    public final String name() {
        return name;
    }

    public abstract String host();

    public abstract int port();

    /** An administrative connection to this database. */
    public abstract Connection admin() throws SQLException;

    /** Runs statements as the administrator, each in its own transaction. */
    public final void execute(String... statements) {
        try (Connection c = admin();
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    /** Every row {@code sql} returns, each as its columns' text. */
    public final List<List<String>> query(String sql) {
        try (Connection c = admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<List<String>> rows = new ArrayList<>();
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>(columns);
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
            return rows;
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    /** The first column of every row {@code sql} returns, as text. */
    public final List<String> queryColumn(String sql) {
        List<String> values = new ArrayList<>();
        for (List<String> row : query(sql)) {
            values.add(row.get(0));
        }
        return values;
    }

    /** The single value {@code sql} returns, as text. */
    public final String queryValue(String sql) {
        List<List<String>> rows = query(sql);
        if (rows.size() != 1 || rows.get(0).size() != 1) {
            throw new IllegalStateException("Expected one value from " + sql + ", got " + rows);
        }
        return rows.get(0).get(0);
    }

    private IllegalStateException failure(SQLException e) {
        return new IllegalStateException("Failed in " + name + ": " + e.getMessage(), e);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + name + " on " + host() + ":" + port() + "}";
    }
}
