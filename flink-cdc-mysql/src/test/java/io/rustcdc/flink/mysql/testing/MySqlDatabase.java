package io.rustcdc.flink.mysql.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** A fresh database on the shared {@link MySqlServer}. */
public final class MySqlDatabase {
    private final MySqlServer server;
    private final String name;

    MySqlDatabase(MySqlServer server, String name) {
        this.server = server;
        this.name = name;
    }

    public MySqlServer server() {
        return server;
    }

    public String name() {
        return name;
    }

    public String host() {
        return server.host();
    }

    public int port() {
        return server.port();
    }

    public String jdbcUrl() {
        return server.jdbcUrl(name);
    }

    public String cdcUser() {
        return MySqlServer.CDC_USER;
    }

    public String cdcPassword() {
        return server.cdcPassword();
    }

    /** An administrative connection to this database. */
    public Connection admin() throws SQLException {
        return server.admin(name);
    }

    /** A connection as the CDC user, which holds only the documented grants. */
    public Connection connect() throws SQLException {
        return server.connect(name, cdcUser(), cdcPassword());
    }

    /** Runs statements as the administrator. */
    public void execute(String... statements) {
        try (Connection c = admin();
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Failed in " + name + ": " + e.getMessage(), e);
        }
    }

    /** The single value {@code sql} returns, as text. */
    public String queryValue(String sql) {
        List<List<String>> rows = query(sql);
        if (rows.size() != 1 || rows.get(0).size() != 1) {
            throw new IllegalStateException("Expected one value from " + sql + ", got " + rows);
        }
        return rows.get(0).get(0);
    }

    /** Every row {@code sql} returns, each as its columns' text. */
    public List<List<String>> query(String sql) {
        try (Connection c = admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<List<String>> rows = new ArrayList<>();
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("Failed in " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * The binlog's end as {@code [file, position, ...]}: {@code SHOW BINARY LOG STATUS} on Oracle MySQL
     * 8.2 and later (8.4 removed the older name), {@code SHOW MASTER STATUS} on MariaDB and older MySQL.
     */
    public List<String> binlogStatus() {
        return query(server.binaryLogStatusStatement()).get(0);
    }

    void drop() {
        server.drop(name);
    }

    @Override
    public String toString() {
        return "MySqlDatabase{" + name + " on " + server.host() + ":" + server.port() + "}";
    }
}
