package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.KeyOrderOracle;
import io.rustcdc.flink.testing.RestartingJob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.annotation.Nullable;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The handoff places a snapshotted table's updates and deletes among its chunks by the chunk key of their
 * old rows, which PostgreSQL logs by the table's REPLICA IDENTITY: a chunk key the old rows may lack (a
 * primary key outside the index of USING INDEX, a column configured for a table without a primary key
 * outside it, a partition's own identity) fails the source at its start, naming the table, the key, the
 * identity and the statement that fixes it; a configured column outside a table's primary key (or only INCLUDEd
 * by it) is refused.
 * With REPLICA IDENTITY FULL, a table without a primary key split by a column hands off exactly (as whole
 * rows: a retraction names the whole old row) under writers that move rows between chunks and delete them.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(240)
class PostgresChunkKeyIdentityITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String OPTION = "scan.incremental.snapshot.chunk.key-column";

    @Test
    void aChunkKeyTheOldRowsMayLackFailsTheSourceNamingTheTableAndTheRemedy(PostgresDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        db.execute("CREATE TABLE ck_cfg (id int PRIMARY KEY, c int NOT NULL, v int)",
                // a column the key INCLUDEs is neither in the key nor in old rows
                "CREATE TABLE ck_inc (id int, c int NOT NULL, v int, PRIMARY KEY (id) INCLUDE (c))",
                "CREATE TABLE ck_nokey (id int NOT NULL, c int NOT NULL, v int)",
                "CREATE UNIQUE INDEX ck_nokey_id ON ck_nokey (id)",
                "ALTER TABLE ck_nokey REPLICA IDENTITY USING INDEX ck_nokey_id",
                "CREATE TABLE ck_idx (id int PRIMARY KEY, c int NOT NULL, v int)",
                "CREATE UNIQUE INDEX ck_idx_c ON ck_idx (c)", "ALTER TABLE ck_idx REPLICA IDENTITY USING INDEX ck_idx_c",
                "CREATE TABLE ck_part (id int PRIMARY KEY, c int NOT NULL, v int) PARTITION BY RANGE (id)",
                "CREATE TABLE ck_part_1 PARTITION OF ck_part FOR VALUES FROM (0) TO (100)",
                "CREATE TABLE ck_part_2 PARTITION OF ck_part FOR VALUES FROM (100) TO (1000)",
                "CREATE UNIQUE INDEX ck_part_2_c ON ck_part_2 (c)",
                "ALTER TABLE ck_part_2 REPLICA IDENTITY USING INDEX ck_part_2_c");
        for (String t : List.of("ck_cfg", "ck_inc", "ck_nokey", "ck_idx", "ck_part", "ck_part_1", "ck_part_2")) {
            db.execute("ALTER TABLE " + t + " OWNER TO " + db.replicationUser());
        }
        for (String t : List.of("ck_cfg", "ck_inc", "ck_nokey", "ck_idx", "ck_part")) {
            db.execute("INSERT INTO " + t + " SELECT g, g * 7, 0 FROM generate_series(1, 10) g");
        }
        db.execute("INSERT INTO ck_part SELECT g, g * 7, 0 FROM generate_series(100, 110) g");
        CdcException outsideThePrimaryKey = failure(cluster, db, "ck_cfg", "c");
        assertThat(outsideThePrimaryKey.kind()).isEqualTo(CdcException.Kind.CONFIGURATION);
        assertThat(outsideThePrimaryKey).hasMessageContaining("Option '" + OPTION + "' names column c of table "
                + "public.ck_cfg, which is not in its primary key [id]");
        assertThat(failure(cluster, db, "ck_inc", "c")).hasMessageContaining("Option '" + OPTION + "' names column c "
                + "of table public.ck_inc, which is not in its primary key [id]");
        CdcException configured = failure(cluster, db, "ck_nokey", "c");
        assertThat(configured.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
        assertThat(configured).hasMessageContaining("The chunk key [c] of table public.ck_nokey (configured by '"
                        + OPTION + "') is not in every old row of its updates and deletes")
                .hasMessageContaining("\"public\".\"ck_nokey\" has REPLICA IDENTITY USING INDEX, so old rows carry only "
                        + "that index's columns (id), without c")
                .hasMessageContaining("ALTER TABLE \"public\".\"ck_nokey\" REPLICA IDENTITY FULL;");
        assertThat(failure(cluster, db, "ck_idx", null))
                .hasMessageContaining("The chunk key [id] of table public.ck_idx (its primary key)")
                .hasMessageContaining("\"public\".\"ck_idx\" has REPLICA IDENTITY USING INDEX, so old rows carry only "
                        + "that index's columns (c), without id")
                .hasMessageContaining("ALTER TABLE \"public\".\"ck_idx\" REPLICA IDENTITY FULL;");
        assertThat(failure(cluster, db, "ck_part", null))
                .hasMessageContaining("The chunk key [id] of table public.ck_part (its primary key)")
                .hasMessageContaining("\"public\".\"ck_part_2\" has REPLICA IDENTITY USING INDEX, so old rows carry only "
                        + "that index's columns (c), without id")
                .hasMessageContaining("ALTER TABLE \"public\".\"ck_part_2\" REPLICA IDENTITY FULL;")
                .hasMessageNotContaining("ck_part_1\"");
    }

    private static CdcException failure(MiniCluster cluster, PostgresDatabase db, String table, @Nullable String column)
            throws Exception {
        try (RestartingJob job = RestartingJob.startDiscarding(cluster, source(db, table, column, 4))) {
            CdcException failure = job.awaitFailure(Duration.ofSeconds(60));
            assertThat(job.failures()).as("a prerequisite or a configuration fails the job once").isEqualTo(1);
            return failure;
        }
    }

    @Test
    void aTableWithoutAPrimaryKeySplitByAColumnHandsOffExactlyUnderReplicaIdentityFull(PostgresDatabase db)
            throws Exception {
        long seed = KeyOrderOracle.seed(getClass());
        db.execute("CREATE TABLE ck_full (id int NOT NULL UNIQUE, c int NOT NULL, v int NOT NULL)",
                "ALTER TABLE ck_full REPLICA IDENTITY FULL", "ALTER TABLE ck_full OWNER TO " + db.replicationUser(),
                "INSERT INTO ck_full SELECT g, (g * 37) % 400, 0 FROM generate_series(1, 200) g");
        // rows told apart by all their values: a retraction names the whole old row, as without a key it must
        JsonChangelog changelog = new JsonChangelog(Map.of("ck_full", List.of("id", "c", "v")));
        try (io.rustcdc.flink.testing.SourceJob job = new io.rustcdc.flink.testing.SourceJob(
                source(db, "ck_full", "c", 4), 2)) {
            job.applyUntil(changelog, () -> !changelog.ops().isEmpty(), Duration.ofSeconds(60));
            try (ConcurrentWriters writers = new ConcurrentWriters(db::admin, 2, 5_000, 3, seed,
                    PostgresChunkKeyIdentityITCase::statement)) {
                writers.awaitEnd();
                assertThat(writers.transactions()).as("transactions committed").isGreaterThan(100);
            }
            Map<String, String> expected = rows(db);
            job.applyUntil(changelog, () -> changelog.rows("ck_full").equals(expected), Duration.ofSeconds(90));
        }
        assertThat(changelog.violations()).as("seed " + seed).isEmpty();
        assertThat(changelog.ops()).as("seed " + seed).containsKeys("read", "insert", "update", "delete");
    }

    /** Inserts, deletes, value updates and moves of a row to another chunk key (mostly another chunk). */
    private static String statement(Random r) {
        int id = 1 + r.nextInt(300);
        switch (r.nextInt(4)) {
            case 0:
                return "INSERT INTO ck_full VALUES (" + id + ", " + r.nextInt(400) + ", 1) ON CONFLICT (id) DO NOTHING";
            case 1:
                return "DELETE FROM ck_full WHERE id = " + id;
            case 2:
                return "UPDATE ck_full SET v = v + 1 WHERE id = " + id;
            default:
                return "UPDATE ck_full SET c = " + r.nextInt(400) + ", v = v + 1 WHERE id = " + id;
        }
    }

    private static CdcSource<String, PostgresPosition, PostgresChunkMark> source(PostgresDatabase db, String table,
            @Nullable String column, int chunkSize) {
        var builder = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, table)))
                .includeTables("public." + table)
                .chunkSize(chunkSize)
                .deserializer(ChangeEventDeserializer.json());
        return column == null ? builder.build() : builder.chunkKeyColumn("public." + table, column).build();
    }

    /** The table's rows as {@link JsonChangelog#rows} keys and renders them. */
    private static Map<String, String> rows(PostgresDatabase db) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = db.admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, c, v FROM ck_full")) {
            while (rs.next()) {
                rows.put(rs.getInt(1) + "|" + rs.getInt(2) + "|" + rs.getInt(3) + "|", MAPPER.createObjectNode()
                        .put("id", rs.getInt(1)).put("c", rs.getInt(2)).put("v", rs.getInt(3)).toString());
            }
        }
        return rows;
    }
}
