package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One {@link MySqlKeyPlacement} per session, used by every chunk's backfill on its own connection: a key's
 * catalogue is read once, and again only for a table described with other collations.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlKeyPlacementITCase {
    private static final List<String> KEY = List.of("k");
    private static final List<ValueType> TYPES = List.of(ValueType.of(ValueKind.TEXT));
    private static final List<Object[]> BOUNDS = List.<Object[]>of(new Object[] {"B"});
    private static final List<Object[]> KEYS = List.<Object[]>of(new Object[] {"a"});

    @Test
    void aKeysCatalogueIsReadOnceUntilTheTableIsDescribedWithOtherCollations(MySqlDatabase db) throws SQLException {
        db.execute("DROP TABLE IF EXISTS placed",
                "CREATE TABLE placed (k VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY)");
        TableId table = TableId.of(db.name(), db.name(), "placed");
        MySqlKeyPlacement placement = new MySqlKeyPlacement();
        try (Connection first = db.admin();
                Connection second = db.admin()) {
            List<String> general = List.of("utf8mb4_general_ci");
            assertThat(placement.place(first, table, KEY, TYPES, general, BOUNDS, KEYS)).as("'a' < 'B' in general_ci")
                    .containsExactly(0);
            db.execute("ALTER TABLE placed MODIFY k VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            // described as before: the collation read for it is used again, on another connection
            assertThat(placement.place(second, table, KEY, TYPES, general, BOUNDS, KEYS)).containsExactly(0);
            // described with the new collation: the catalogue is read again
            assertThat(placement.place(second, table, KEY, TYPES, List.of("utf8mb4_bin"), BOUNDS, KEYS))
                    .as("'B' < 'a' in utf8mb4_bin").containsExactly(1);
        }
    }

    /**
     * A key column whose collation changed after the chunks were planned (the stream still handing off from them) is
     * placed in the planned collation, with that collation's character set, whatever the column's is now; a planned
     * collation the server does not know fails the source naming the table and both collations.
     */
    @Test
    void keysArePlacedInTheCollationTheChunksWerePlannedIn(MySqlDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS replaced",
                "CREATE TABLE replaced (k VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY)");
        TableId table = TableId.of(db.name(), db.name(), "replaced");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            assertThat(session.placeKeys(table, KEY, TYPES, List.of("utf8mb4_general_ci"), BOUNDS, KEYS))
                    .as("'a' < 'B' in the planned utf8mb4_general_ci, not after it as in the column's utf8mb4_bin")
                    .containsExactly(0);
            assertThat(session.placeKeys(table, KEY, TYPES, List.of("latin1_swedish_ci"), BOUNDS, KEYS))
                    .as("in latin1_swedish_ci, of another character set").containsExactly(0);
            if (db.server().isMariaDb()) { // which lists its UCA 14 collations without their character set
                assertThat(session.placeKeys(table, KEY, TYPES, List.of("utf8mb4_uca1400_ai_ci"), BOUNDS, KEYS))
                        .as("in MariaDB's utf8mb4_uca1400_ai_ci").containsExactly(0);
            }
            assertThat(session.placeKeys(table, KEY, TYPES, List.of("utf8mb4_bin"), BOUNDS, KEYS))
                    .as("'B' < 'a' in the column's own utf8mb4_bin").containsExactly(1);
            assertThatThrownBy(() -> session.placeKeys(table, KEY, TYPES, List.of("utf8mb4_nonesuch_ci"), BOUNDS, KEYS))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("table " + db.name() + ".replaced").hasMessageContaining("utf8mb4_nonesuch_ci")
                    .hasMessageContaining("to utf8mb4_bin");
        }
    }
}
