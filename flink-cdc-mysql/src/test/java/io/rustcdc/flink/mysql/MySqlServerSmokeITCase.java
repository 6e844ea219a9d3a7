package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Proves from the server itself that the test harness gives a binlog-ready server. */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlServerSmokeITCase {

    @Test
    void binlogIsOnInRowFormatWithFullImagesAndMetadata(MySqlDatabase db) {
        assertThat(variable(db, "log_bin")).isEqualTo("ON");
        assertThat(variable(db, "binlog_format")).isEqualTo("ROW");
        assertThat(variable(db, "binlog_row_image")).isEqualTo("FULL");
        assertThat(variable(db, "binlog_row_metadata")).isEqualTo("FULL");
        assertThat(Long.parseLong(variable(db, "server_id"))).isPositive();
    }

    @Test
    void gtidsAreOn(MySqlDatabase db) {
        if (db.server().isMariaDb()) {
            assertThat(variable(db, "gtid_strict_mode")).isEqualTo("ON");
            db.execute("CREATE TABLE gtid_probe (id INT PRIMARY KEY)", "INSERT INTO gtid_probe VALUES (1)");
            assertThat(variable(db, "gtid_binlog_pos")).matches("\\d+-\\d+-\\d+(,\\d+-\\d+-\\d+)*");
        } else {
            assertThat(variable(db, "gtid_mode")).isEqualTo("ON");
        }
    }

    @Test
    void cdcUserHoldsOnlyTheDocumentedGrants(MySqlDatabase db) throws SQLException {
        List<String> grants = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                grants.add(rs.getString(1));
            }
        }
        assertThat(grants).hasSize(1);
        String grant = grants.get(0);
        assertThat(grant).contains("SELECT").contains("REPLICATION SLAVE").doesNotContain("ALL PRIVILEGES")
                .doesNotContain("SUPER").doesNotContain("RELOAD");
        // The CDC user can read the binlog position, which the connector needs...
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            assertThat(rs.next()).isTrue();
        }
        // ...and grant tables are enforced: it cannot create a table.
        assertThatThrownBy(() -> {
                    try (Connection c = db.connect();
                            Statement s = c.createStatement()) {
                        s.execute("CREATE TABLE not_allowed (id INT)");
                    }
                })
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("denied");
    }

    @Test
    void wrongPasswordIsRefused(MySqlDatabase db) {
        assertThatThrownBy(() -> db.server().connect(db.name(), MySqlServer.CDC_USER, "not-the-password"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("Access denied");
    }

    private static String variable(MySqlDatabase db, String name) {
        List<List<String>> rows = db.query("SHOW GLOBAL VARIABLES LIKE '" + name + "'");
        assertThat(rows).as("variable %s", name).hasSize(1);
        return rows.get(0).get(1);
    }
}
