package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * DDL on a table while its snapshot chunks are read. A chunk takes the table's ACCESS SHARE lock
 * before its snapshot, so a DDL statement (ACCESS EXCLUSIVE) either waits for the chunk to end or
 * ends before the chunk's snapshot: the chunk's rows, its shape and its mark agree. A statement
 * waiting when the chunk starts is not read through an older snapshot (a rewriting ALTER would leave
 * the table looking empty to it: rows silently lost). A table gone between chunks fails the read
 * naming the table.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresSnapshotDdlITCase {

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
