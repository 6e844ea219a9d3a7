package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reader streams a chunk's rows to Flink's output, so a backpressured job stops reading the
 * chunk's result set: the server, which aborts a connection it cannot write to for {@code
 * net_write_timeout} seconds, must not end the chunk's read. Here the server's default is lowered to
 * 1 s and the rows' consumer stalls for 4 s after the first row, with tens of megabytes still to send
 * (more than the driver and the sockets buffer).
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlChunkBackpressureITCase {
    private static final int ROWS = 30_000;

    @Test
    void aChunkWhoseRowsWaitLongerThanTheServersWriteTimeoutIsReadWhole(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE wide (id INT PRIMARY KEY, v TEXT NOT NULL)");
        try (Connection admin = db.admin(); Statement s = admin.createStatement()) {
            String digits = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 "
                    + "UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
            String n = "a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d";
            s.execute("INSERT INTO " + db.name() + ".wide SELECT " + n + ", REPEAT('x', 1500) FROM " + digits + " a, "
                    + digits + " b, " + digits + " c, " + digits + " e, " + digits + " f WHERE " + n + " < " + ROWS);
            String original;
            try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.net_write_timeout")) {
                rs.next();
                original = rs.getString(1);
            }
            s.execute("SET GLOBAL net_write_timeout = 1"); // new connections take it
            try {
                MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
                AtomicLong read = new AtomicLong();
                try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
                    TableDescription table = session.describe(TableId.of(db.name(), db.name(), "wide"));
                    session.readChunk(table, List.of("id"), null, null, row -> {
                        if (read.getAndIncrement() == 0) {
                            stall(4_000);
                        }
                    });
                }
                assertThat(read.get()).as("rows of the chunk").isEqualTo(ROWS);
            } finally {
                s.execute("SET GLOBAL net_write_timeout = " + original);
            }
        }
    }

    /** A backpressured output, as the reader's full queue blocks the connector's callback. */
    private static void stall(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
