package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkOrigins;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import io.rustcdc.flink.testing.GatedJson;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.consistency.ConsistencySuite;
import io.rustcdc.flink.testing.consistency.ConsistencyTarget;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adversarial consistency suite on SQL Server: randomized writers and faults, a table created
 * while the job runs (enabled for CDC right after), the changelog replayed against the tables. And a
 * snapshot that cannot be exact: a table dropped and created again between two of its chunks gives
 * the later chunks' marks another object_id, and the job fails when such a chunk is reported, whatever
 * the change tables show (dropping the table dropped its capture instance). Skipped without a server,
 * see {@link SqlServerDatabase}.
 */
@ExtendWith(SqlServerExtension.class)
@Timeout(3600)
class SqlServerConsistencyITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

    @AfterEach
    void openTheGate() {
        GatedJson.held = false;
    }

    @Test
    void randomizedWorkloadsAndFaultsKeepTheChangelogExact(SqlServerDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        ConsistencySuite.run(cluster, new Target(db), 2, true);
    }

    /**
     * The object_id of each chunk's mark is the table it read under its locks: the same across an ALTER
     * (the table keeps its object), another after the table was dropped and created again, whose rows the
     * later chunk reads with the new table's columns; the framework's comparison of the marks fails naming
     * the table and both object_ids. A table dropped for good fails the next chunk naming it.
     */
    @Test
    @Timeout(120)
    void aChunkMarkCarriesTheObjectIdOfTheTableItRead(SqlServerDatabase db) throws Exception {
        db.execute("CREATE TABLE rel (id BIGINT PRIMARY KEY, b INT)", "INSERT INTO rel (id, b) VALUES " + rows());
        int before = objectId(db, "rel");
        SqlServerConnector connector = SqlServerConnector.create(db.config().build());
        TableId table = TableId.of(db.name(), "dbo", "rel");
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> session = connector.openSession()) {
            TableDescription described = session.describe(table);
            SqlServerChunkMark first = session.readChunk(described, List.of("id"), null, new Object[] {2L}, e -> { });
            db.execute("ALTER TABLE rel ALTER COLUMN b BIGINT");
            SqlServerChunkMark second = session.readChunk(described, List.of("id"), new Object[] {2L},
                    new Object[] {4L}, e -> { });
            replace(db, "rel");
            List<ChangeEvent> rows = new CopyOnWriteArrayList<>();
            SqlServerChunkMark third = session.readChunk(described, List.of("id"), new Object[] {4L}, null, rows::add);
            assertThat(first.objectId()).isEqualTo(before).isEqualTo(second.objectId());
            assertThat(third.objectId()).isEqualTo(objectId(db, "rel")).isNotEqualTo(before);
            assertThat(connector.tableIdentity(first)).isEqualTo(connector.tableIdentity(second))
                    .isNotEqualTo(connector.tableIdentity(third));
            assertThat(rows).extracting(e -> ((Number) e.after().get("b")).longValue()).as("the new table's rows")
                    .containsOnly(-1L);
            ChunkOrigins<SqlServerChunkMark> origins = new ChunkOrigins<>(connector::tableIdentity);
            ChunkKey key = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
                    connector.keyOrder());
            origins.read(ChunkSplit.<SqlServerChunkMark>of(table, key, 0, null, null).finished(first));
            origins.read(ChunkSplit.<SqlServerChunkMark>of(table, key, 1, null, null).finished(second));
            assertThatThrownBy(() -> origins.read(ChunkSplit.<SqlServerChunkMark>of(table, key, 2, null, null)
                    .finished(third))).isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("Table dbo.rel was replaced while its snapshot was read")
                    .hasMessageContaining("chunk 0 from object_id " + before + ", chunk 2 from object_id "
                            + third.objectId());
            db.execute("DROP TABLE rel");
            assertThatThrownBy(() -> session.readChunk(described, List.of("id"), new Object[] {4L}, null, e -> { }))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("Table dbo.rel was dropped or renamed while its snapshot was read");
        }
    }

    /**
     * A table dropped and created again (with rows) between two chunks while the job runs: its capture
     * instance goes with the old table, so the change tables show nothing of it. The reader holds its
     * first chunk's rows in a gate (the chunk read, its transaction ended, the next not asked for) while
     * the table is replaced; the next chunk reads the new table and the job fails once, naming the table,
     * both object_ids and the remedy.
     */
    @Test
    @Timeout(180)
    void aTableReplacedBetweenChunksFailsTheJob(SqlServerDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        db.execute("CREATE TABLE swap (id BIGINT PRIMARY KEY, b INT)", "INSERT INTO swap (id, b) VALUES " + rows());
        db.enableTable("swap");
        int old = objectId(db, "swap");
        CdcSource<String, SqlServerPosition, SqlServerChunkMark> source = CdcSource.builder()
                .connector(SqlServerConnector.create(db.config().pollInterval(Duration.ofMillis(200)).build()))
                .includeTables("dbo.swap")
                .chunkSize(2)
                .deserializer(new GatedJson())
                .build();
        GatedJson.held = true;
        GatedJson.ARRIVED.set(0);
        try (RestartingJob job = RestartingJob.start(cluster, source)) {
            Poll.until("the first chunk's rows reach the gate", Duration.ofSeconds(60), () -> GatedJson.ARRIVED.get() > 0);
            Poll.until("the first chunk's transaction ends", Duration.ofSeconds(30), () -> "0".equals(db.queryValue(
                    "SELECT COUNT(*) FROM sys.dm_tran_locks WHERE resource_database_id = DB_ID() AND resource_type = "
                            + "'OBJECT' AND resource_associated_entity_id = OBJECT_ID(N'dbo.swap')")));
            replace(db, "swap");
            int replaced = objectId(db, "swap");
            GatedJson.held = false;
            CdcException failure = job.awaitFailure(Duration.ofSeconds(90));
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.STATE);
            assertThat(failure).hasMessageContaining("Table dbo.swap was replaced while its snapshot was read")
                    .hasMessageContaining("its chunks come from two tables (chunk 0 from object_id " + old
                            + ", chunk 1 from object_id " + replaced + ")")
                    .hasMessageContaining("Start the source without state to snapshot the table again")
                    .hasMessageContaining("or leave the table out");
            assertThat(job.failures()).as("final: not restarted").isEqualTo(1);
        }
    }

    /** Rows 1 to 6 of {@code (id, b)}, b equal to the id. */
    private static String rows() {
        StringBuilder rows = new StringBuilder();
        for (int id = 1; id <= 6; id++) {
            rows.append(id == 1 ? "" : ", ").append('(').append(id).append(", ").append(id).append(')');
        }
        return rows.toString();
    }

    /** Drops {@code dbo.table} and creates it again, with rows 1 to 6 whose b is -1, in one transaction. */
    private static void replace(SqlServerDatabase db, String table) throws SQLException {
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DROP TABLE dbo." + table);
            s.execute("CREATE TABLE dbo." + table + " (id BIGINT PRIMARY KEY, b INT)");
            s.execute("INSERT INTO dbo." + table + " (id, b) SELECT id, -1 FROM (VALUES " + rows()
                    + ") AS v (id, b)");
            c.commit();
        }
    }

    private static int objectId(SqlServerDatabase db, String table) {
        return Integer.parseInt(db.queryValue("SELECT OBJECT_ID(N'dbo." + table + "', 'U')"));
    }

    private static final class Target implements ConsistencyTarget {
        /** {@code INSERT INTO t (columns) VALUES (...), (...)}, as the suite writes it. */
        private static final Pattern INSERT = Pattern.compile("INSERT INTO (\\S+) \\(([^)]*)\\) VALUES (.*)",
                Pattern.DOTALL);

        private final SqlServerDatabase db;

        Target(SqlServerDatabase db) {
            this.db = db;
        }

        @Override
        public String server() {
            return "SQL Server " + db.queryValue("SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(64))");
        }

        @Override
        public Connection connect() throws SQLException {
            return db.admin();
        }

        /** CDC on the table, and its capture instance started (on a connection of its own). */
        @Override
        public void prepareTable(Connection c, String table) {
            db.enableTable(table);
        }

        /** A MERGE of the insert's rows on the key. */
        @Override
        public String upsert(String insert, String table, String keyColumns, String assignments) {
            Matcher m = INSERT.matcher(insert);
            if (!m.matches()) {
                throw new IllegalArgumentException("Not an INSERT ... VALUES the suite writes: " + insert);
            }
            String columns = m.group(2);
            StringBuilder on = new StringBuilder();
            for (String k : keyColumns.split(",\\s*")) {
                on.append(on.length() == 0 ? "" : " AND ").append(table).append('.').append(k).append(" = src.").append(k);
            }
            StringBuilder srcColumns = new StringBuilder();
            for (String col : columns.split(",\\s*")) {
                srcColumns.append(srcColumns.length() == 0 ? "" : ", ").append("src.").append(col);
            }
            return "MERGE INTO " + table + " WITH (HOLDLOCK) USING (VALUES " + m.group(3) + ") AS src (" + columns
                    + ") ON " + on + " WHEN MATCHED THEN UPDATE SET " + assignments + " WHEN NOT MATCHED THEN INSERT ("
                    + columns + ") VALUES (" + srcColumns + ");";
        }

        @Override
        public CdcSource<String, ?, ?> source(List<String> tables, int chunkSize, boolean atLeastOnceSinks, String run) {
            return CdcSource.builder()
                    .connector(SqlServerConnector.create(db.config().pollInterval(Duration.ofMillis(200)).build()))
                    .includeTables(tables.stream().map(t -> "dbo." + t).toArray(String[]::new))
                    .chunkSize(chunkSize)
                    .tableDiscoveryInterval(Duration.ofSeconds(1))
                    .sinkGuarantee(atLeastOnceSinks ? SinkGuarantee.AT_LEAST_ONCE : SinkGuarantee.EXACTLY_ONCE)
                    .deserializer(ChangeEventDeserializer.json())
                    .build();
        }
    }
}
