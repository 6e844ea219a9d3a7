package io.rustcdc.flink.postgres.testing;

import io.rustcdc.flink.testing.SqlDatabase;
import java.sql.Connection;
import java.sql.SQLException;

/** A fresh database on the shared {@link PostgresServer}, owned by the replication role. */
public final class PostgresDatabase extends SqlDatabase {
    private final PostgresServer server;

    PostgresDatabase(PostgresServer server, String name) {
        super(name);
        this.server = server;
    }

    public PostgresServer server() {
        return server;
    }

    @Override
    public String host() {
        return server.host();
    }

    @Override
    public int port() {
        return server.port();
    }

    public String jdbcUrl() {
        return server.jdbcUrl(name());
    }

    public String replicationUser() {
        return PostgresServer.REPLICATION_USER;
    }

    public String replicationPassword() {
        return server.replicationPassword();
    }

    /** A superuser connection to this database. */
    @Override
    public Connection admin() throws SQLException {
        return server.admin(name());
    }

    /** A connection as the replication role (the owner of this database). */
    public Connection connect() throws SQLException {
        return server.connect(name(), replicationUser(), replicationPassword());
    }

    void drop() {
        server.drop(name());
    }
}
