package io.rustcdc.flink.postgres;

import static io.rustcdc.flink.testing.StreamTestSupport.events;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.postgres.testing.PgBouncer;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.TwoTables;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The source behind a real PgBouncer in transaction pooling mode ({@link PgBouncer}, skipped when it cannot be
 * had): with {@code wal.transport} = {@code sql-peek} every connection of the job, the snapshot's, the
 * catalogue's and the slot's reads, goes through the pooler, fewer server connections than the source opens,
 * and the changelog under concurrent writers is exact; {@code streaming} through it fails at once, naming
 * the remedy.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresPgBouncerITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Server connections per database and user: fewer than the job's clients (4 readers, enumerator, stream). */
    private static final int POOL_SIZE = 3;

    @Test
    void sqlPeekThroughAPoolerInTransactionModeIsExact(PostgresDatabase db) throws Exception {
        try (PgBouncer bouncer = PgBouncer.inTransactionMode(db.server(), db.replicationUser(),
                db.replicationPassword(), POOL_SIZE)) {
            Writers.createTables(db, 2000);
            CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                    .connector(PostgresConnector.create(PostgresTestConfigs.builder(db)
                            .hostname(bouncer.host()).port(bouncer.port())
                            .slotName("pooled").publicationName("pooled")
                            .createSlotIfMissing(true).createPublicationIfMissing(true)
                            .walTransport(WalTransport.SQL_PEEK).build()))
                    .includeTables("public.t1", "public.t2")
                    .chunkSize(100)
                    .deserializer(ChangeEventDeserializer.json())
                    .build();
            JsonChangelog changelog = TwoTables.underConcurrentWrites(source,
                    () -> Writers.start(db, 2, 5_000, 2000), db::admin);
            assertThat(changelog.violations()).isEmpty();
            assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");

            // checkpoints confirmed positions through the pooler: the slot was advanced
            assertThat(db.queryValue("SELECT confirmed_flush_lsn > '0/0' AND NOT active FROM pg_replication_slots "
                    + "WHERE slot_name = 'pooled'")).isEqualTo("t");
            // through the pooler, in more client connections than server ones: transactions of one client ran on
            // several server sessions (each reset after every transaction)
            String log = bouncer.log();
            String pool = db.name() + "/" + db.replicationUser() + "@";
            long clients = log.lines().filter(l -> l.contains(pool) && l.contains("login attempt")).count();
            long servers = log.lines().filter(l -> l.contains(pool) && l.contains("new connection to server")).count();
            assertThat(servers).as("server connections opened, in PgBouncer's log:%n%s", log).isBetween(1L, (long) POOL_SIZE);
            assertThat(clients).as("client logins, in PgBouncer's log:%n%s", log).isGreaterThan(POOL_SIZE);
        }
    }

    @Test
    void streamingThroughAPoolerFailsNamingTheRemedy(PostgresDatabase db) throws Exception {
        try (PgBouncer bouncer = PgBouncer.inTransactionMode(db.server(), db.replicationUser(),
                db.replicationPassword(), POOL_SIZE)) {
            db.execute("CREATE TABLE items (id int PRIMARY KEY)", "ALTER TABLE items OWNER TO " + db.replicationUser());
            PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db)
                    .hostname(bouncer.host()).port(bouncer.port())
                    .slotName("pooled_streaming").publicationName("pooled_streaming")
                    .createSlotIfMissing(true).createPublicationIfMissing(true).build());
            // at the first start, before any snapshot, slot or publication: not when the stream opens after the snapshot
            try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
                assertThatThrownBy(() -> session.prepareStream(List.of(TableId.of(db.name(), "public", "items")), false))
                        .isInstanceOfSatisfying(CdcException.class,
                                e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                        .hasMessageContaining("unsupported startup parameter: replication")
                        .hasMessageContaining("'wal.transport' = 'sql-peek'");
            }
            assertThat(db.queryValue("SELECT count(*) FROM pg_catalog.pg_replication_slots WHERE slot_name = "
                    + "'pooled_streaming'")).isEqualTo("0");
        }
    }

    /** toast.reselect reads unchanged TOASTed values again through the pooler: each read one pooled transaction. */
    @Test
    void toastReselectThroughAPoolerFillsUnchangedValuesExactly(PostgresDatabase db) throws Exception {
        try (PgBouncer bouncer = PgBouncer.inTransactionMode(db.server(), db.replicationUser(),
                db.replicationPassword(), POOL_SIZE)) {
            db.execute("CREATE TABLE docs (id int PRIMARY KEY, small text, big text)",
                    "ALTER TABLE docs ALTER COLUMN big SET STORAGE EXTERNAL",
                    "ALTER TABLE docs OWNER TO " + db.replicationUser());
            PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.builder(db)
                    .hostname(bouncer.host()).port(bouncer.port()).slotName("pooled_toast").publicationName("pooled_toast")
                    .createSlotIfMissing(true).createPublicationIfMissing(true).walTransport(WalTransport.SQL_PEEK)
                    .toastReselect(true).build());
            PostgresPosition start;
            try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
                start = session.prepareStream(List.of(TableId.of(db.name(), "public", "docs")), false);
            }
            // out of line (over 2 kB, EXTERNAL), with quotes, backslashes and characters beyond ASCII
            String big = "'\\\"\u00e9\u4e2d\ud83d\ude00 ".repeat(400);
            db.execute("INSERT INTO docs VALUES (1, 'a', '" + big.replace("'", "''") + "')");
            try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
                assertThat(events(stream, 1).get(0).after().get("big")).isEqualTo(big);
                for (int i = 0; i < 3; i++) { // several reads, each in a transaction the pooler may give another session
                    db.execute("UPDATE docs SET small = 'u" + i + "' WHERE id = 1");
                    ChangeEvent update = events(stream, 1).get(0);
                    assertThat(update.unchangedColumns()).as("every unchanged value read again").isEmpty();
                    assertThat(update.after().get("big")).isEqualTo(big);
                    assertThat(update.after().get("small")).isEqualTo("u" + i);
                }
            } finally {
                db.execute("SELECT pg_drop_replication_slot('pooled_toast')");
            }
        }
    }

    @Test
    void snapshotValuesThroughAPoolerAreWrittenUnderTheSourcesSettings(PostgresDatabase db) throws Exception {
        // defaults that write values otherwise than the source reads them; a pooled transaction starts from these
        db.execute("CREATE TABLE kinds (id int PRIMARY KEY, b bytea, i interval, f float8, ts timestamptz)",
                "ALTER TABLE kinds OWNER TO " + db.replicationUser(),
                "INSERT INTO kinds VALUES (1, '\\x00ff5c27'::bytea, '1 year 2 mons -3 days 04:05:06.789', 0.1::float8 + 0.2,"
                        + " '2024-02-29 23:59:59.123456+00'), (2, NULL, '-00:00:00.000001', 1e-300, NULL)",
                "INSERT INTO kinds SELECT g, pg_catalog.decode(pg_catalog.md5(g::text), 'hex'), g * interval '1.5 sec',"
                        + " 1.0 / g, timestamptz '2000-01-01 00:00:00+00' + g * interval '1 day' FROM generate_series(3, 400) g",
                "ALTER ROLE " + db.replicationUser() + " IN DATABASE " + db.name() + " SET bytea_output = 'escape'",
                "ALTER ROLE " + db.replicationUser() + " IN DATABASE " + db.name() + " SET IntervalStyle = 'sql_standard'",
                "ALTER ROLE " + db.replicationUser() + " IN DATABASE " + db.name() + " SET extra_float_digits = 0");
        List<String> direct = snapshot(PostgresTestConfigs.builder(db).build());
        assertThat(direct).hasSize(400).anySatisfy(e -> assertThat(e).contains("0.30000000000000004"));
        try (PgBouncer bouncer = PgBouncer.inTransactionMode(db.server(), db.replicationUser(),
                db.replicationPassword(), POOL_SIZE)) {
            List<String> pooled = snapshot(PostgresTestConfigs.builder(db).hostname(bouncer.host()).port(bouncer.port())
                    .walTransport(WalTransport.SQL_PEEK).build());
            assertThat(pooled).isEqualTo(direct);
        }
    }

    /** The rows of {@code kinds} a snapshot-only source reads, as native JSON without its source block, sorted. */
    private static List<String> snapshot(PostgresSourceConfig config) throws Exception {
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(config))
                .includeTables("public.kinds")
                .chunkSize(64)
                .startupMode(StartupMode.snapshot())
                .deserializer(ChangeEventDeserializer.json())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<String> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg")
                .executeAndCollect()) {
            while (it.hasNext()) {
                rows.add(MAPPER.readTree(it.next()).get("after").toString());
            }
        }
        rows.sort(null);
        return rows;
    }
}
