package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkOrigins;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.ColumnDdlUnderWriters;
import io.rustcdc.flink.testing.DdlServer;
import io.rustcdc.flink.testing.GatedJson;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.ReadGate;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.TableDdlUnderWriters;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
 * DDL on a table while its snapshot chunks are read. A chunk takes the table's ACCESS SHARE lock
 * before its snapshot, so a DDL statement (ACCESS EXCLUSIVE) either waits for the chunk to end or
 * ends before the chunk's snapshot: the chunk's rows, its shape and its mark agree. A statement
 * waiting when the chunk starts is not read through an older snapshot (a rewriting ALTER would leave
 * the table looking empty to it: rows silently lost). A table gone between chunks fails the read
 * naming the table. A table replaced under its name between chunks (dropped and created again) gives
 * the later chunks' marks another relation id, and the job fails when such a chunk is reported, also
 * when the old table had no change in the WAL after the stream's start (pgoutput then shows nothing).
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresSnapshotDdlITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(1).build());

    @AfterEach
    void openTheGate() {
        GatedJson.held = false;
        ReadGate.reset();
    }

    @Test
    void aChunkStartedWhileARewritingAlterHoldsTheTableReadsTheTableAfterIt(PostgresDatabase db) throws Exception {
        db.execute("CREATE TABLE rw (id int PRIMARY KEY, b int)", "INSERT INTO rw SELECT g, g FROM generate_series(1, 5) g",
                "ALTER TABLE rw OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db).build());
        TableId table = TableId.of(db.name(), "public", "rw");
        List<ChangeEvent> rows = new CopyOnWriteArrayList<>();
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession();
                Connection ddl = db.admin(); Statement s = ddl.createStatement()) {
            TableDescription described = session.describe(table); // planned before the ALTER
            ddl.setAutoCommit(false);
            s.execute("ALTER TABLE rw ALTER COLUMN b TYPE bigint"); // rewrites the table, holds ACCESS EXCLUSIVE
            CompletableFuture<PostgresChunkMark> chunk = CompletableFuture.supplyAsync(
                    () -> session.readChunk(described, List.of("id"), null, null, rows::add));
            awaitLockWait(db, "rw");
            ddl.commit();
            chunk.get(30, TimeUnit.SECONDS);
        }
        assertThat(rows).extracting(e -> e.after().get("id")).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
        assertThat(rows.get(0).shape().column("b").orElseThrow().dataType()).isEqualTo("bigint");
    }

    /**
     * A chunk key column made nullable between chunks (found by a probe: a row whose key became NULL lies in no chunk's
     * range, and the handoff placed its changes in a chunk that never read it, so rows were lost silently): the next
     * chunk's read fails naming the table and the column.
     */
    @Test
    void aChunkKeyMadeNullableBetweenChunksFailsTheNextChunk(PostgresDatabase db) throws Exception {
        db.execute("CREATE TABLE nk (id int PRIMARY KEY, k int NOT NULL)",
                "INSERT INTO nk SELECT g, g FROM generate_series(1, 6) g", "ALTER TABLE nk OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db).build());
        TableId table = TableId.of(db.name(), "public", "nk");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            TableDescription described = session.describe(table);
            session.readChunk(described, List.of("k"), null, new Object[] {2}, e -> { });
            db.execute("ALTER TABLE nk ALTER COLUMN k DROP NOT NULL", "UPDATE nk SET k = NULL WHERE id = 5");
            assertThatThrownBy(() -> session.readChunk(described, List.of("k"), new Object[] {2}, new Object[] {4},
                    e -> { })).isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("The chunk key of table public.nk changed while its snapshot was read (k from NOT "
                            + "NULL to nullable)");
        }
    }

    @Test
    void aTableDroppedOrRenamedBetweenChunksFailsTheNextChunkNamingIt(PostgresDatabase db) throws Exception {
        db.execute("CREATE TABLE gone (id int PRIMARY KEY)", "INSERT INTO gone VALUES (1), (2)",
                "ALTER TABLE gone OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db).build());
        TableId table = TableId.of(db.name(), "public", "gone");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            TableDescription described = session.describe(table);
            session.readChunk(described, List.of("id"), null, new Object[] {1L}, e -> { });
            db.execute("DROP TABLE gone");
            assertThatThrownBy(() -> session.readChunk(described, List.of("id"), new Object[] {1L}, null, e -> { }))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("Table " + table.qualifiedName() + " was dropped or renamed while its snapshot "
                            + "was read")
                    .hasMessageContaining("Start the job without state");
            // renamed away between chunks: the same
            db.execute("CREATE TABLE moved (id int PRIMARY KEY)", "INSERT INTO moved VALUES (1), (2)",
                    "ALTER TABLE moved OWNER TO " + db.replicationUser());
            TableDescription moved = session.describe(TableId.of(db.name(), "public", "moved"));
            session.readChunk(moved, List.of("id"), null, new Object[] {1L}, e -> { });
            db.execute("ALTER TABLE moved RENAME TO moved_away");
            assertThatThrownBy(() -> session.readChunk(moved, List.of("id"), new Object[] {1L}, null, e -> { }))
                    .hasMessageContaining("Table public.moved was dropped or renamed while its snapshot was read");
        }
    }

    /**
     * A chunk key's collation or type changed between two chunks orders the ends planned before otherwise: the next
     * chunk end planned fails ({@code STATE}), naming the table, the column and both orders, and a chunk read in the
     * new order fails when read with the description it was planned with, and carries the new order in its mark when
     * read with one of the new order, which the source compares across the table's chunks, instead of reading rows
     * twice or leaving them out (found by an adversarial probe: ICU's numeric order to {@code "C"}, {@code int} to
     * {@code varchar}). A widening ({@code varchar(20)} to {@code varchar(30)}) keeps the order and passes.
     */
    @Test
    void aChunkKeysCollationOrTypeChangedBetweenChunksFailsTheNextChunkAndItsPlanning(PostgresDatabase db)
            throws Exception {
        db.execute("CREATE COLLATION IF NOT EXISTS num (provider = icu, locale = 'en-u-kn-true')",
                "DROP TABLE IF EXISTS keyed, keyed_int",
                "CREATE TABLE keyed (id varchar(20) COLLATE num PRIMARY KEY, b int)",
                "INSERT INTO keyed SELECT 'k' || g, g FROM generate_series(1, 12) g",
                "CREATE TABLE keyed_int (id int PRIMARY KEY)", "INSERT INTO keyed_int SELECT generate_series(1, 12)",
                "ALTER TABLE keyed OWNER TO " + db.replicationUser(), "ALTER TABLE keyed_int OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db).build());
        TableId table = TableId.of(db.name(), "public", "keyed");
        List<String> key = List.of("id");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            TableDescription described = session.describe(table);
            PostgresChunkMark first = session.readChunk(described, key, null, new Object[] {"k2"}, e -> { });
            // the same order (without COLLATE the column would take the type's default collation)
            db.execute("ALTER TABLE keyed ALTER COLUMN id TYPE varchar(30) COLLATE num");
            PostgresChunkMark second = session.readChunk(described, key, new Object[] {"k2"}, new Object[] {"k4"},
                    e -> { });
            assertThat(session.nextChunkEnd(described, key, new Object[] {"k4"}, 2)).containsExactly("k6");
            assertThat(connector.tableIdentity(first)).isEqualTo(connector.tableIdentity(second));
            db.execute("ALTER TABLE keyed ALTER COLUMN id TYPE varchar(30) COLLATE \"C\"");
            assertThatThrownBy(() -> session.nextChunkEnd(described, key, new Object[] {"k4"}, 2))
                    .isInstanceOfSatisfying(CdcException.class, f -> assertThat(f.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("The chunk key of table public.keyed changed while its snapshot was read "
                            + "(id from character varying(20) (collation ")
                    .hasMessageContaining("to character varying(30) (collation ")
                    .hasMessageContaining("Start the job without its state");
            // a chunk planned before, read now with the description it was planned with, fails in its snapshot
            assertThatThrownBy(() -> session.readChunk(described, key, new Object[] {"k4"}, new Object[] {"k6"}, e -> { }))
                    .isInstanceOfSatisfying(CdcException.class, f -> assertThat(f.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("The chunk key of table public.keyed changed while its snapshot was read "
                            + "(id from character varying(20) (collation ")
                    .hasMessageContaining("to character varying(30) (collation C))");
            // read with a description of the new order (a reader that described the table after the change), its
            // mark says so, and the source fails on chunks of two key orders (ChunkOrigins)
            try (CatalogSession<PostgresPosition, PostgresChunkMark> later = connector.openSession()) {
                PostgresChunkMark third = later.readChunk(later.describe(table), key, new Object[] {"k4"},
                        new Object[] {"k6"}, e -> { });
                assertThat(connector.tableIdentity(third)).as("read in another order")
                        .isNotEqualTo(connector.tableIdentity(first));
                ChunkKey chunkKey = ChunkKey.of(described, connector.keyOrder(), null,
                        "scan.incremental.snapshot.chunk.key-column");
                ChunkOrigins<PostgresChunkMark> origins = new ChunkOrigins<>(connector::tableIdentity);
                origins.read(ChunkSplit.<PostgresChunkMark>of(table, chunkKey, 0, null, new Object[] {"k2"}).finished(first));
                assertThatThrownBy(() -> origins.read(ChunkSplit.<PostgresChunkMark>of(table, chunkKey, 2,
                        new Object[] {"k4"}, new Object[] {"k6"}).finished(third)))
                        .hasMessageContaining("its chunks come from two tables or were read in two key orders")
                        .hasMessageContaining("with key id text (collation C)");
            }
            TableId ints = TableId.of(db.name(), "public", "keyed_int");
            TableDescription intKey = session.describe(ints);
            session.readChunk(intKey, key, null, new Object[] {2L}, e -> { });
            db.execute("ALTER TABLE keyed_int ALTER COLUMN id TYPE varchar(20)");
            assertThatThrownBy(() -> session.nextChunkEnd(intKey, key, new Object[] {2L}, 2))
                    .hasMessageContaining("The chunk key of table public.keyed_int changed while its snapshot was read "
                            + "(id from integer to character varying(20) (collation ");
        } finally {
            db.execute("DROP TABLE IF EXISTS keyed, keyed_int");
        }
    }

    /**
     * Every chunk end planned in ICU's numeric order, then the collation changed to {@code "C"} before any chunk was
     * read, by a reader that described the table after it: each chunk checks that its bounds are still in order in
     * the key's collation now, and the first whose are not ({@code k8 < k12} no longer holds) fails naming the table,
     * instead of the chunks reading 19 rows of 12 (found by a review). Chunks whose bounds keep their order read on.
     */
    @Test
    void chunksAllPlannedBeforeTheirKeysCollationChangedFailWhereTheirBoundsNoLongerFollowEachOther(PostgresDatabase db)
            throws Exception {
        db.execute("CREATE COLLATION IF NOT EXISTS num (provider = icu, locale = 'en-u-kn-true')",
                "DROP TABLE IF EXISTS planned", "CREATE TABLE planned (id varchar(20) COLLATE num PRIMARY KEY)",
                "INSERT INTO planned SELECT 'k' || g FROM generate_series(1, 12) g",
                "ALTER TABLE planned OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db).build());
        TableId table = TableId.of(db.name(), "public", "planned");
        List<String> key = List.of("id");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> planner = connector.openSession()) {
            TableDescription described = planner.describe(table);
            List<Object[]> ends = new ArrayList<>();
            for (Object[] end = planner.nextChunkEnd(described, key, null, 4); end != null;
                    end = planner.nextChunkEnd(described, key, end, 4)) {
                ends.add(end);
            }
            assertThat(ends).extracting(e -> e[0]).containsExactly("k4", "k8", "k12");
            db.execute("ALTER TABLE planned ALTER COLUMN id TYPE varchar(20) COLLATE \"C\"");
            try (CatalogSession<PostgresPosition, PostgresChunkMark> reader = connector.openSession()) {
                TableDescription now = reader.describe(table);
                List<ChangeEvent> rows = new ArrayList<>();
                reader.readChunk(now, key, null, ends.get(0), rows::add);
                reader.readChunk(now, key, ends.get(0), ends.get(1), rows::add);
                assertThatThrownBy(() -> reader.readChunk(now, key, ends.get(1), ends.get(2), rows::add))
                        .isInstanceOfSatisfying(CdcException.class, f -> assertThat(f.kind()).isEqualTo(CdcException.Kind.STATE))
                        .hasMessageContaining("The chunk key [id] of table public.planned orders a chunk's bounds otherwise "
                                + "than when they were planned");
            }
        } finally {
            db.execute("DROP TABLE IF EXISTS planned");
        }
    }

    /**
     * The chunk end's order check reads the catalogue without the table's lock: a key retyped while it waits for the
     * lock (behind a reader's transaction) passes the check, and the chunk end's query, queued behind the change,
     * then fails on the key's old literal (SQLSTATE 42883, found by the adversarial probe on PostgreSQL 14). That
     * failure checks the order again and names the table and column.
     */
    @Test
    void aKeyRetypedWhileItsChunkEndWaitsForTheTableFailsNamingTheTable(PostgresDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS queued", "CREATE TABLE queued (id int PRIMARY KEY)",
                "INSERT INTO queued SELECT generate_series(1, 12)", "ALTER TABLE queued OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db).build());
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession();
                Connection reader = db.admin(); Statement r = reader.createStatement()) {
            TableDescription described = session.describe(TableId.of(db.name(), "public", "queued"));
            reader.setAutoCommit(false);
            r.execute("SELECT count(*) FROM queued"); // holds the table's ACCESS SHARE lock until it ends
            Future<?> alter = threads.submit(() -> {
                db.execute("ALTER TABLE queued ALTER COLUMN id TYPE varchar(20)");
                return null;
            });
            Poll.until("the ALTER waits for the table", Duration.ofSeconds(30), () -> waitingOn(db, "queued") == 1);
            Future<Object[]> end = threads.submit(() -> session.nextChunkEnd(described, List.of("id"), new Object[] {2L}, 2));
            Poll.until("the chunk end waits behind it", Duration.ofSeconds(30), () -> waitingOn(db, "queued") == 2);
            reader.commit();
            alter.get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> end.get(30, TimeUnit.SECONDS)).cause().isInstanceOfSatisfying(CdcException.class,
                    f -> assertThat(f.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("The chunk key of table public.queued changed while its snapshot was read "
                            + "(id from integer to character varying(20)");
        } finally {
            threads.shutdownNow();
            db.execute("DROP TABLE IF EXISTS queued");
        }
    }

    private static int waitingOn(PostgresDatabase db, String table) throws Exception {
        try (Connection c = db.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE relation = to_regclass('" + table
                        + "') AND NOT granted")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * The relation id of each chunk's mark is the table it read under its lock: the same across a rewriting
     * ALTER (the table keeps its oid), another after the table was dropped and created again.
     */
    @Test
    void aChunkMarkCarriesTheRelationIdOfTheTableItRead(PostgresDatabase db) throws Exception {
        db.execute("CREATE TABLE rel (id int PRIMARY KEY, b int)", "INSERT INTO rel SELECT g, g FROM generate_series(1, 6) g",
                "ALTER TABLE rel OWNER TO " + db.replicationUser());
        long before = relationId(db, "rel");
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db).build());
        TableId table = TableId.of(db.name(), "public", "rel");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            TableDescription described = session.describe(table);
            PostgresChunkMark first = session.readChunk(described, List.of("id"), null, new Object[] {2L}, e -> { });
            db.execute("ALTER TABLE rel ALTER COLUMN b TYPE bigint"); // rewrites the table under the same oid
            PostgresChunkMark second = session.readChunk(described, List.of("id"), new Object[] {2L}, new Object[] {4L},
                    e -> { });
            replace(db, "rel", "CREATE TABLE rel (id int PRIMARY KEY, b int)");
            List<ChangeEvent> rows = new CopyOnWriteArrayList<>();
            PostgresChunkMark third = session.readChunk(described, List.of("id"), new Object[] {4L}, null, rows::add);
            assertThat(first.relationId()).isEqualTo(before).isEqualTo(second.relationId());
            assertThat(third.relationId()).isEqualTo(relationId(db, "rel")).isNotEqualTo(before);
            assertThat(connector.tableIdentity(first)).isEqualTo(connector.tableIdentity(second))
                    .isNotEqualTo(connector.tableIdentity(third));
            assertThat(rows).extracting(e -> e.after().get("b")).as("the new table's rows").containsOnly(-1L);
        }
    }

    /**
     * The silent case before: the table dropped and created again (with rows) between two chunks, no
     * change of the old table after the stream's start, so the stream never shows the old relation. The
     * reader holds its first chunk's rows in a gate (the chunk read, its transaction ended, the next not
     * asked for) while the table is replaced; the next chunk reads the new table and the job fails once,
     * naming the table, both relation ids and the remedy.
     */
    @Test
    void aTableReplacedBetweenChunksWithoutAChangeInTheStreamFailsTheJob(PostgresDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        db.execute("CREATE TABLE swap (id int PRIMARY KEY, b int)",
                "INSERT INTO swap SELECT g, g FROM generate_series(1, 6) g",
                "ALTER TABLE swap OWNER TO " + db.replicationUser());
        long old = relationId(db, "swap");
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "swap")))
                .includeTables("public.swap")
                .chunkSize(2)
                .deserializer(new GatedJson())
                .build();
        GatedJson.held = true;
        GatedJson.ARRIVED.set(0);
        try (RestartingJob job = RestartingJob.start(cluster, source)) {
            Poll.until("the first chunk's rows reach the gate", Duration.ofSeconds(60), () -> GatedJson.ARRIVED.get() > 0);
            Poll.until("the first chunk's transaction ends", Duration.ofSeconds(30), () -> locksOn(db, "swap") == 0);
            replace(db, "swap", "CREATE TABLE swap (id int PRIMARY KEY, b int)");
            long replaced = relationId(db, "swap");
            GatedJson.held = false;
        ReadGate.reset();
            CdcException failure = job.awaitFailure(Duration.ofSeconds(60));
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.STATE);
            assertThat(failure).hasMessageContaining("Table public.swap was replaced while its snapshot was read")
                    .hasMessageContaining("its chunks come from two tables or were read in two key orders (chunk 0 "
                            + "from relation id " + old + " with key id integer, chunk 1 from relation id " + replaced
                            + " with key id integer)")
                    .hasMessageContaining("Start the source without state to snapshot the table again")
                    .hasMessageContaining("or leave the table out");
            assertThat(job.failures()).as("final: not restarted").isEqualTo(1);
        }
    }

    /**
     * Column DDL (add, add with a default, drop, widen, rename) at random moments while writers change
     * the table: between chunks of its snapshot and during the stream; the changelog, schema changes
     * applied, ends exactly as the table (seed printed, replay with {@code -Drustcdc.ddl.seed=N}).
     */
    @Test
    void columnDdlUnderWritersDuringTheSnapshotAndTheStreamKeepsTheChangelogExact(PostgresDatabase db) throws Exception {
        ColumnDdlUnderWriters.run(ddlServer(db),
                (table, column, type) -> "ALTER TABLE " + table + " ALTER COLUMN " + column + " TYPE " + type);
    }

    /**
     * The table renamed away or dropped, and created again (same or other columns) and written to, while
     * writers change it: during the stream the old table's changelog is exact up to {@code table_replaced}
     * (pgoutput sends nothing for the drop or the rename; the event comes with the new table's first
     * change), the new table's after it; between chunks of the snapshot the job fails ({@code STATE}).
     * Seed printed, replay with {@code -Drustcdc.tableddl.seed=N}. The publication is {@code FOR ALL
     * TABLES}, which carries the new table (a publication of the captured tables loses it with the drop).
     */
    @Test
    void tableReplacedUnderWritersDuringTheStreamAndTheSnapshot(PostgresDatabase db) throws Exception {
        TableDdlUnderWriters.run(ddlServer(db), new TableDdlUnderWriters.Replacements(true,
                List.of(TableDdlUnderWriters.Kind.RENAME_AND_CREATE, TableDdlUnderWriters.Kind.DROP_AND_CREATE),
                (from, to) -> "ALTER TABLE " + from + " RENAME TO " + to, kind -> List.of("table_replaced")));
    }

    /** The server for the DDL-under-writers tests: each job with a slot and a publication for all tables of its own. */
    private static DdlServer ddlServer(PostgresDatabase db) {
        return new DdlServer() {
            @Override
            public String name() {
                return "PostgreSQL " + db.queryValue("SHOW server_version");
            }

            @Override
            public Connection connect() throws SQLException {
                return db.admin();
            }

            @Override
            public void prepare(Statement s, String table) throws SQLException {
                s.execute("ALTER TABLE " + table + " OWNER TO " + db.replicationUser());
            }

            @Override
            public CdcSource<String, ?, ?> source(String table, int chunkSize, String run) throws Exception {
                db.execute("CREATE PUBLICATION " + run + " FOR ALL TABLES");
                return CdcSource.builder()
                        .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, run)))
                        .includeTables("public." + table)
                        .chunkSize(chunkSize)
                        .deserializer(new ReadGate())
                        .build();
            }

            @Override
            public void finish(String run) throws Exception {
                Poll.until("the run's slot dropped", Duration.ofSeconds(30), () -> {
                    db.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"
                            + run + "'", "DROP PUBLICATION IF EXISTS " + run);
                    return true;
                });
            }
        };
    }

    /** Drops {@code table} and creates it again with {@code create}, with rows 1 to 6 whose b is -1, in one transaction. */
    private static void replace(PostgresDatabase db, String table, String create) throws Exception {
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("DROP TABLE " + table);
            s.execute(create);
            s.execute("INSERT INTO " + table + " SELECT g, -1 FROM generate_series(1, 6) g");
            s.execute("ALTER TABLE " + table + " OWNER TO " + db.replicationUser());
            c.commit();
        }
    }

    private static long relationId(PostgresDatabase db, String table) throws Exception {
        try (Connection c = db.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT '" + table + "'::regclass::oid")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** How many locks any session holds or waits for on {@code table}. */
    private static int locksOn(PostgresDatabase db, String table) throws Exception {
        try (Connection c = db.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE relation = '" + table + "'::regclass")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Waits until a session waits for a lock on {@code table}. */
    private static void awaitLockWait(PostgresDatabase db, String table) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = '"
                        + table + "'::regclass")) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(20);
            }
        }
        throw new AssertionError("No session waited for a lock on " + table);
    }
}
