package io.rustcdc.flink.mysql.testing;

import io.rustcdc.flink.testing.SqlDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** A fresh database on the shared {@link MySqlServer}. */
public final class MySqlDatabase extends SqlDatabase {
    private final MySqlServer server;

    MySqlDatabase(MySqlServer server, String name) {
        super(name);
        this.server = server;
    }

    public MySqlServer server() {
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

    public String cdcUser() {
        return MySqlServer.CDC_USER;
    }

    public String cdcPassword() {
        return server.cdcPassword();
    }

    /** An administrative connection to this database. */
    @Override
    public Connection admin() throws SQLException {
        return server.admin(name());
    }

    /** A connection as the CDC user, which holds only the documented grants. */
    public Connection connect() throws SQLException {
        return server.connect(name(), cdcUser(), cdcPassword());
    }

    /**
     * The binlog's end as {@code [file, position, ...]}: {@code SHOW BINARY LOG STATUS} on Oracle MySQL
     * 8.2 and later (8.4 removed the older name), {@code SHOW MASTER STATUS} on MariaDB and older MySQL.
     */
    public List<String> binlogStatus() {
        return query(server.binaryLogStatusStatement()).get(0);
    }

    void drop() {
        server.drop(name());
    }
}
