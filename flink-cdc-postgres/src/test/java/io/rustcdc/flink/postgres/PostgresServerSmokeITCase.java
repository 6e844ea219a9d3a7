package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGProperty;

/** Proves from the server itself that the test harness gives a CDC-ready PostgreSQL. */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresServerSmokeITCase {

    @Test
    void serverIsReadyForLogicalReplication(PostgresDatabase db) {
        assertThat(db.queryValue("SHOW wal_level")).isEqualTo("logical");
        assertThat(db.queryValue("SHOW synchronous_commit")).isEqualTo("on");
        assertThat(Integer.parseInt(db.queryValue("SHOW max_replication_slots"))).isGreaterThanOrEqualTo(8);
    }

    @Test
    void runsTheMajorVersionTheBuildAskedFor(PostgresDatabase db) {
        String wanted = System.getProperty("rustcdc.postgres.version");
        if (wanted != null && System.getenv("RUSTCDC_TEST_POSTGRES_URL") == null) {
            assertThat(db.server().majorVersion()).isEqualTo(Integer.parseInt(wanted));
        }
    }

    @Test
    void replicationRoleHasReplicationAndScramPassword(PostgresDatabase db) {
        assertThat(db.queryValue("SELECT rolreplication FROM pg_roles WHERE rolname = '" + db.replicationUser() + "'"))
                .isEqualTo("t");
        assertThat(db.queryValue("SELECT left(rolpassword, 14) FROM pg_authid WHERE rolname = '"
                        + db.replicationUser() + "'"))
                .isEqualTo("SCRAM-SHA-256$");
    }

    @Test
    void replicationLoginWorks(PostgresDatabase db) throws SQLException {
        Properties props = new Properties();
        PGProperty.USER.set(props, db.replicationUser());
        PGProperty.PASSWORD.set(props, db.replicationPassword());
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        PGProperty.SSL_MODE.set(props, "disable");
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("IDENTIFY_SYSTEM")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString("dbname")).isEqualTo(db.name());
        }
    }

    @Test
    void wrongPasswordIsRefused(PostgresDatabase db) {
        assertThatThrownBy(() -> db.server().connect(db.name(), db.replicationUser(), "not-the-password"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("password authentication failed");
    }
}
