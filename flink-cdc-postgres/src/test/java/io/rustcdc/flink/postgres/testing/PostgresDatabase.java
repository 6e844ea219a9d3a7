package io.rustcdc.flink.postgres.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** A fresh database on the shared {@link PostgresServer}, owned by the replication role. */
public final class PostgresDatabase {
    private final PostgresServer server;
    private final String name;

    PostgresDatabase(PostgresServer server, String name) {
        this.server = server;
        this.name = name;
    }

    public PostgresServer server() {
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

    public String replicationUser() {
        return PostgresServer.REPLICATION_USER;
    }

    public String replicationPassword() {
        return server.replicationPassword();
    }

    /** A superuser connection to this database. */
    public Connection admin() throws SQLException {
        return server.admin(name);
    }

    /** A connection as the replication role (the owner of this database). */
    public Connection connect() throws SQLException {
        return server.connect(name, replicationUser(), replicationPassword());
    }

    /** Runs statements as superuser, each in its own transaction. */
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

    /** The first column of every row {@code sql} returns, as text. */
    public List<String> queryColumn(String sql) {
        try (Connection c = admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> values = new ArrayList<>();
            while (rs.next()) {
                values.add(rs.getString(1));
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException("Failed in " + name + ": " + e.getMessage(), e);
        }
    }

    /** The single value {@code sql} returns, as text. */
    public String queryValue(String sql) {
        List<String> values = queryColumn(sql);
        if (values.size() != 1) {
            throw new IllegalStateException("Expected one row from " + sql + ", got " + values.size());
        }
        return values.get(0);
    }

    void drop() {
        server.drop(name);
    }

    @Override
    public String toString() {
        return "PostgresDatabase{" + name + " on " + server.host() + ":" + server.port() + "}";
    }
}
