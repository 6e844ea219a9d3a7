package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Chunk ends of temporal keys are read as the chunk's rows are: the driver reformats temporal text
 * (a DATETIME(3) key .055 came back as .550), which cut chunks at the wrong key.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlTemporalChunkITCase {
    private static final String OPTION = "scan.incremental.snapshot.chunk.key-column";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "DATETIME(3) | '2024-03-30 10:00:00.055', '2024-03-30 10:00:00.550', '2024-03-30 10:00:00.005', "
                + "'2024-03-30 10:00:00.500', '2024-03-30 10:00:00.050', '2024-03-30 10:00:00.000', '2024-03-30 10:00:00.056'",
        "TIMESTAMP(6) | '2024-03-30 10:00:00.000055', '2024-03-30 10:00:00.550000', '2024-03-30 10:00:00.000005', "
                + "'2024-03-30 10:00:00.500000', '2024-03-30 10:00:00.050000', '2024-03-30 10:00:00.000550', "
                + "'2024-03-30 10:00:00.000056'",
    })
    void temporalKeysSplitAtTheRightKey(String type, String values, MySqlDatabase db) {
        db.execute("DROP TABLE IF EXISTS timed", "CREATE TABLE timed (k " + type + " PRIMARY KEY, n INT)");
        String[] keys = values.split(",\\s*");
        for (int i = 0; i < keys.length; i++) {
            db.execute("INSERT INTO timed VALUES (" + keys[i] + ", " + i + ")");
        }
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            TableDescription table = session.describe(TableId.of(db.name(), db.name(), "timed"));
            ChunkKey key = ChunkKey.of(table, MySqlKeyOrder.INSTANCE, null, OPTION);
            assertThat(key.splittable()).isTrue();
            Set<Object> seen = new HashSet<>();
            List<Integer> sizes = new ArrayList<>();
            Object[] after = null;
            while (true) {
                Object[] upTo = session.nextChunkEnd(table, key.columns(), after, 2);
                List<ChangeEvent> chunk = new ArrayList<>();
                session.readChunk(table, key.columns(), after, upTo, chunk::add);
                for (ChangeEvent e : chunk) {
                    assertThat(seen.add(e.after().get("n"))).as("row %s read once", e.after().get("n")).isTrue();
                }
                if (upTo == null) {
                    break;
                }
                sizes.add(chunk.size());
                after = upTo;
            }
            assertThat(seen).hasSize(keys.length);
            assertThat(sizes).as("every chunk but the last has exactly the chunk size").containsOnly(2);
        }
    }
}
