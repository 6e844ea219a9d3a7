package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/** Every failure the PostgreSQL options and checks exist to prevent, each loud and with its remedy. */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresFailuresITCase {
    private PostgresDatabase db;
    private String name;
    private TableId orders;

    @BeforeEach
    void setUp(PostgresDatabase db, TestInfo test) {
        this.db = db;
        this.name = test.getTestMethod().get().getName().toLowerCase();
        this.orders = TableId.of(db.name(), "public", "orders");
        db.execute("DROP TABLE IF EXISTS orders, keyless CASCADE",
                "CREATE TABLE orders (id int PRIMARY KEY, note text)",
                "ALTER TABLE orders OWNER TO " + db.replicationUser());
    }

    @Test
    void wrongPasswordNamesWhereNotThePassword() {
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).password(Secret.of("wrong-secret-123")).build();
        assertKind(() -> PostgresConnector.create(config).openSession(), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("refused the login of " + db.replicationUser() + "@")
                .hasMessageContaining("password")
                .hasMessageNotContaining("wrong-secret-123");
        assertThat(config.toString()).doesNotContain("wrong-secret-123").contains("password=******");
    }

    @Test
    void missingSlotIsAnErrorWithTheStatementToCreateIt() {
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).slotName(name).publicationName(name)
                .createPublicationIfMissing(true).build();
        assertKind(() -> prepare(config), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("Replication slot '" + name + "' does not exist")
                .hasMessageContaining("SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput');");
        assertThat(db.queryValue("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + name + "'")).isEqualTo("0");
    }

    @Test
    void missingPublicationIsAnErrorWithTheStatementToCreateIt() {
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).slotName(name).publicationName(name)
                .createSlotIfMissing(true).build();
        assertKind(() -> prepare(config), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("Publication '" + name + "' does not exist")
                .hasMessageContaining("CREATE PUBLICATION \"" + name + "\" FOR TABLE \"public\".\"orders\";");
    }

    @Test
    void createdPublicationCarriesExactlyTheCapturedTables() {
        db.execute("CREATE TABLE IF NOT EXISTS keyless (v int)");
        prepare(PostgresTestConfigs.streaming(db, name));
        assertThat(db.queryColumn("SELECT tablename FROM pg_publication_tables WHERE pubname = '" + name + "'"))
                .containsExactly("orders");
        assertThat(db.queryValue("SELECT plugin FROM pg_replication_slots WHERE slot_name = '" + name + "'"))
                .isEqualTo("pgoutput");
    }

    @Test
    void publicationThatLacksATableOrAnOperationIsNamed() {
        db.execute("CREATE PUBLICATION " + name + "_empty", "CREATE PUBLICATION " + name + "_noupd FOR TABLE orders "
                + "WITH (publish = 'insert, delete')");
        assertKind(() -> prepare(PostgresTestConfigs.builder(db).slotName(name).publicationName(name + "_empty")
                        .createSlotIfMissing(true).build()), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("does not carry \"public\".\"orders\"")
                .hasMessageContaining("ALTER PUBLICATION \"" + name + "_empty\" ADD TABLE \"public\".\"orders\";");
        assertKind(() -> prepare(PostgresTestConfigs.builder(db).slotName(name).publicationName(name + "_noupd")
                        .createSlotIfMissing(true).build()), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("does not publish every operation")
                .hasMessageContaining("SET (publish = 'insert, update, delete, truncate')");
    }

    /**
     * A row filter (PostgreSQL 15+) would drop the changes of rows outside it, rows the snapshot
     * delivers: refused, whether the publication carries other tables or not. A column list is not
     * refused: the snapshot reads only its columns too ({@link PgCatalog#describe}).
     */
    @Test
    void publicationWithARowFilterIsRefused() {
        org.junit.jupiter.api.Assumptions.assumeTrue(db.server().majorVersion() >= 15,
                "row filters and column lists came with PostgreSQL 15");
        db.execute("DROP TABLE IF EXISTS other", "CREATE TABLE other (id int PRIMARY KEY)",
                "CREATE PUBLICATION " + name + "_rf FOR TABLE orders WHERE (id < 100), other",
                "CREATE PUBLICATION " + name + "_other FOR TABLE orders, other WHERE (id > 0)",
                "CREATE PUBLICATION " + name + "_cols FOR TABLE orders (id)");
        assertKind(() -> prepare(PostgresTestConfigs.builder(db).slotName(name).publicationName(name + "_rf")
                        .createSlotIfMissing(true).build()), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("Publication '" + name + "_rf' publishes \"public\".\"orders\" only WHERE (id < 100)")
                .hasMessageContaining("changes would be lost")
                .hasMessageContaining("BEGIN; ALTER PUBLICATION \"" + name + "_rf\" DROP TABLE \"public\".\"orders\"; "
                        + "ALTER PUBLICATION \"" + name + "_rf\" ADD TABLE \"public\".\"orders\"; COMMIT;")
                .hasMessageNotContaining("other");
        assertThat(db.queryValue("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + name + "'"))
                .as("refused before the slot is created").isEqualTo("0");
        // a filter on a table the source does not capture changes nothing it captures
        prepare(PostgresTestConfigs.builder(db).slotName(name).publicationName(name + "_other")
                .createSlotIfMissing(true).build());
        prepare(PostgresTestConfigs.builder(db).slotName(name).publicationName(name + "_cols")
                .createSlotIfMissing(true).build());
        db.execute("SELECT pg_drop_replication_slot('" + name + "')", "DROP TABLE other");
    }

    @Test
    void roleWithoutReplicationIsNamed() {
        db.execute("DROP ROLE IF EXISTS plain_reader", "CREATE ROLE plain_reader LOGIN PASSWORD 'pw-plain'",
                "GRANT SELECT ON orders TO plain_reader");
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).username("plain_reader")
                .password(Secret.of("pw-plain")).slotName(name).publicationName(name).build();
        assertKind(() -> prepare(config), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("role plain_reader lacks the REPLICATION attribute")
                .hasMessageContaining("ALTER ROLE plain_reader REPLICATION;");
    }

    @Test
    void walLevelBelowLogicalIsNamed() {
        org.junit.jupiter.api.Assumptions.assumeFalse(io.rustcdc.flink.postgres.testing.PostgresServer.external(),
                "needs a server of its own");
        io.rustcdc.flink.postgres.testing.PostgresServer replica =
                io.rustcdc.flink.postgres.testing.PostgresServer.startPrivate("wal_level=replica");
        io.rustcdc.flink.postgres.testing.PostgresDatabase other = replica.createDatabase("wal_level");
        other.execute("CREATE TABLE orders (id int PRIMARY KEY)", "ALTER TABLE orders OWNER TO " + other.replicationUser());
        PostgresSourceConfig config = PostgresTestConfigs.streaming(other, "never");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = PostgresConnector.create(config).openSession()) {
            assertKind(() -> session.prepareStream(List.of(TableId.of(other.name(), "public", "orders")), false),
                    CdcException.Kind.PREREQUISITE)
                    .hasMessageContaining("wal_level is 'replica'")
                    .hasMessageContaining("ALTER SYSTEM SET wal_level = logical;");
        }
    }

    @Test
    void snapshotWithoutSelectPrivilegeIsNamed() {
        db.execute("DROP ROLE IF EXISTS no_select", "CREATE ROLE no_select LOGIN PASSWORD 'pw-no'");
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).username("no_select").password(Secret.of("pw-no")).build();
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = PostgresConnector.create(config).openSession()) {
            assertKind(() -> session.checkSnapshotPrerequisites(List.of(orders)), CdcException.Kind.PREREQUISITE)
                    .hasMessageContaining("may not read \"public\".\"orders\"")
                    .hasMessageContaining("GRANT SELECT ON \"public\".\"orders\" TO no_select;");
        }
    }

    @Test
    void rowLevelSecurityThatWouldHideRowsFailsTheSnapshotInsteadOfLeavingThemOut() {
        db.execute("DROP ROLE IF EXISTS rls_reader", "CREATE ROLE rls_reader LOGIN PASSWORD 'pw-rls'",
                "GRANT SELECT ON orders TO rls_reader", "INSERT INTO orders VALUES (1, 'seen'), (2, 'hidden')",
                "ALTER TABLE orders ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY only_seen ON orders FOR SELECT USING (note = 'seen')");
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).username("rls_reader").password(Secret.of("pw-rls"))
                .build();
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = PostgresConnector.create(config).openSession()) {
            assertKind(() -> session.checkSnapshotPrerequisites(List.of(orders)), CdcException.Kind.PREREQUISITE)
                    .hasMessageContaining("Row-level security applies to the role rls_reader on \"public\".\"orders\"")
                    .hasMessageContaining("ALTER ROLE rls_reader BYPASSRLS;");
            // read all the same, as after a policy created since the check: the read fails, never leaves rows out
            TableDescription table = session.describe(orders);
            assertKind(() -> session.readChunk(table, List.of("id"), null, null, row -> { }),
                    CdcException.Kind.PREREQUISITE)
                    .hasMessageContaining("row-level security")
                    .hasMessageContaining("BYPASSRLS");
        }
        db.execute("ALTER ROLE rls_reader BYPASSRLS");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = PostgresConnector.create(config).openSession()) {
            session.checkSnapshotPrerequisites(List.of(orders));
            List<Object> ids = new java.util.ArrayList<>();
            session.readChunk(session.describe(orders), List.of("id"), null, null, row -> ids.add(row.after().get("id")));
            assertThat(ids).hasSize(2);
        }
    }

    @Test
    void replicaIdentityThatCannotServeTheChangelogIsNamed() {
        db.execute("CREATE TABLE keyless (v int)", "ALTER TABLE keyless OWNER TO " + db.replicationUser());
        TableId keyless = TableId.of(db.name(), "public", "keyless");
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, name));
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            assertKind(() -> session.prepareStream(List.of(orders, keyless), false), CdcException.Kind.PREREQUISITE)
                    .hasMessageContaining("REPLICA IDENTITY of \"public\".\"keyless\" does not fit")
                    .hasMessageNotContaining("\"orders\" does not fit")
                    .hasMessageContaining("ALTER TABLE \"public\".\"keyless\" REPLICA IDENTITY FULL;");
            assertKind(() -> session.prepareStream(List.of(orders), true), CdcException.Kind.PREREQUISITE)
                    .hasMessageContaining("whole old rows")
                    .hasMessageContaining("ALTER TABLE \"public\".\"orders\" REPLICA IDENTITY FULL;");
            db.execute("ALTER TABLE orders REPLICA IDENTITY FULL");
            session.prepareStream(List.of(orders), true);
        }
    }

    /**
     * A first start that finds the slot still being created (by a first start a restart cut short) tries again
     * (a transient failure): a final one failed a job restored from a savepoint taken during its first start.
     */
    @Test
    void slotStillBeingCreatedIsTriedAgain() throws Exception {
        PostgresSourceConfig config = PostgresTestConfigs.streaming(db, name);
        try (Connection open = db.admin();
                Connection creating = db.admin();
                Statement s = open.createStatement()) {
            open.setAutoCommit(false);
            s.execute("INSERT INTO orders VALUES (1, 'a')"); // a transaction with an xid: the creation waits for it
            CompletableFuture<Void> created = CompletableFuture.runAsync(() -> {
                try (Statement c = creating.createStatement()) {
                    c.execute("SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput')");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Poll.until("the slot's creation to start", Duration.ofSeconds(30), () -> "1".equals(db.queryValue(
                    "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + name + "'")));
            assertKind(() -> prepare(config), CdcException.Kind.CONNECTION)
                    .hasMessageContaining("Replication slot '" + name + "' is being created by another connection");
            open.commit();
            created.get(30, TimeUnit.SECONDS);
        }
        assertThat(prepare(config).lsn()).isEqualTo(Lsn.valueOf(db.queryValue(
                "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + name + "'")));
    }

    @Test
    void slotOfAnotherPluginIsRefused() {
        db.execute("SELECT pg_create_logical_replication_slot('" + name + "', 'test_decoding')");
        assertKind(() -> prepare(PostgresTestConfigs.streaming(db, name)), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("uses the output plugin 'test_decoding'");
    }

    @Test
    void slotDroppedMidStreamIsAFinalLossNeverASilentRestart() throws Exception {
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, name));
        PostgresPosition start = prepare(connector.config());
        db.execute("INSERT INTO orders VALUES (1, 'a')");
        ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all());
        try {
            StreamTestSupport.events(stream, 1);
            db.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + name + "'");
            Poll.until("the slot to be released", Duration.ofSeconds(30), () -> "f".equals(db.queryValue(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = '" + name + "'")));
            db.execute("SELECT pg_drop_replication_slot('" + name + "')");
            assertKind(() -> {
                for (int i = 0; i < 100; i++) {
                    stream.poll(Duration.ofMillis(100));
                }
            }, CdcException.Kind.CONNECTION);
        } finally {
            stream.close();
        }
        // create-if-missing is on, yet resuming never recreates the slot
        assertKind(() -> connector.openStream(start, TableFilter.all()), CdcException.Kind.POSITION_LOST)
                .hasMessageContaining("Replication slot '" + name + "' no longer exists")
                .hasMessageContaining("never recreates a lost slot");
        assertThat(db.queryValue("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + name + "'")).isEqualTo("0");
    }

    @Test
    void slotInvalidatedByPostgresIsAFinalLoss() {
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, name));
        PostgresPosition start = prepare(connector.config());
        try {
            db.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'", "SELECT pg_reload_conf()");
            Poll.until("PostgreSQL to invalidate slot " + name, Duration.ofSeconds(60), () -> {
                db.execute("INSERT INTO orders SELECT g, repeat('x', 1000) FROM generate_series(1, 2000) g "
                                + "ON CONFLICT (id) DO UPDATE SET note = excluded.note || 'y'",
                        "SELECT pg_switch_wal()", "CHECKPOINT");
                return "lost".equals(db.queryValue("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '"
                        + name + "'"));
            });
        } finally {
            db.execute("ALTER SYSTEM RESET max_slot_wal_keep_size", "SELECT pg_reload_conf()");
        }
        assertKind(() -> connector.openStream(start, TableFilter.all()), CdcException.Kind.POSITION_LOST)
                .hasMessageContaining("was invalidated (wal_status = lost)")
                .hasMessageContaining("max_slot_wal_keep_size");
    }

    @Test
    void resumingFromBeforeTheSlotsConfirmedPositionIsAGap() throws Exception {
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, name));
        PostgresPosition start = prepare(connector.config());
        db.execute("INSERT INTO orders VALUES (1, 'a')");
        db.execute("SELECT pg_replication_slot_advance('" + name + "', pg_current_wal_lsn())");
        assertKind(() -> connector.openStream(start, TableFilter.all()), CdcException.Kind.POSITION_LOST)
                .hasMessageContaining("has already confirmed position")
                .hasMessageContaining("past the position " + start)
                .hasMessageContaining("older checkpoint or savepoint");
    }

    @Test
    void failoverSlotNeedsPostgres17() {
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).slotName(name).publicationName(name)
                .createSlotIfMissing(true).failoverSlot(true).createPublicationIfMissing(true).build();
        if (db.server().majorVersion() < 17) {
            assertKind(() -> prepare(config), CdcException.Kind.CONFIGURATION).hasMessageContaining("PostgreSQL 17");
        } else {
            prepare(config);
            assertThat(db.queryValue("SELECT failover FROM pg_replication_slots WHERE slot_name = '" + name + "'"))
                    .isEqualTo("t");
        }
    }

    /**
     * A slot read with protocol version 2 and streaming sends stream-start messages for large
     * transactions; the decoder refuses them instead of skipping them.
     */
    @Test
    void protocolVersion2StreamingMessagesAreRefused() throws Exception {
        db.execute("SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput')",
                "CREATE PUBLICATION " + name + " FOR TABLE orders");
        ByteBuffer first = firstV2Message();
        assertThat((char) first.get(0)).isIn('S', 'E', 'c', 'A');
        PgOutputDecoder decoder = new PgOutputDecoder(db.name(), name, TableFilter.all(),
                PostgresPosition.at(Lsn.ZERO), null, null);
        assertKind(() -> decoder.handle(first), CdcException.Kind.PREREQUISITE)
                .hasMessageContaining("message of type 'S'")
                .hasMessageContaining("protocol version 2 or later")
                .hasMessageContaining("does not skip such messages");
    }

    private ByteBuffer firstV2Message() throws Exception {
        Properties props = new Properties();
        PGProperty.USER.set(props, db.replicationUser());
        PGProperty.PASSWORD.set(props, db.replicationPassword());
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        PGProperty.SSL_MODE.set(props, "disable");
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props)) {
            c.createStatement().execute("SET logical_decoding_work_mem = '64kB'");
            // a transaction larger than logical_decoding_work_mem is streamed before it commits
            db.execute("INSERT INTO orders SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g");
            PGReplicationStream stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
                    .withSlotName(name).withStartPosition(LogSequenceNumber.INVALID_LSN)
                    .withSlotOption("proto_version", "2").withSlotOption("streaming", "on")
                    .withSlotOption("publication_names", name).withStatusInterval(1, TimeUnit.SECONDS).start();
            try {
                StringBuilder seen = new StringBuilder();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (System.nanoTime() < deadline) {
                    ByteBuffer message = stream.readPending();
                    if (message == null) {
                        Thread.sleep(10);
                        continue;
                    }
                    char type = (char) message.get(0);
                    if ("SEcA".indexOf(type) >= 0) {
                        ByteBuffer copy = ByteBuffer.allocate(message.remaining());
                        copy.put(message).flip();
                        return copy;
                    }
                    if (seen.length() < 20) {
                        seen.append(type);
                    }
                }
                throw new AssertionError("The server streamed no transaction; messages began with " + seen);
            } finally {
                stream.close();
            }
        }
    }

    private PostgresPosition prepare(PostgresSourceConfig config) {
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = PostgresConnector.create(config).openSession()) {
            return session.prepareStream(List.of(orders), false);
        }
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertKind(
            org.assertj.core.api.ThrowableAssert.ThrowingCallable call, CdcException.Kind kind) {
        return assertThatThrownBy(call).isInstanceOf(CdcException.class)
                .satisfies(e -> assertThat(((CdcException) e).kind()).as("kind of: " + e.getMessage()).isEqualTo(kind));
    }
}
