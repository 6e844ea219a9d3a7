package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * DDL on a table while its snapshot chunks are read. A chunk's snapshot takes the table's metadata lock
 * as soon as it opens, before the chunk's end position is read: a statement holding the table when the
 * chunk starts ends before that position (the chunk sees it between the positions read around its
 * snapshot and opens the snapshot again, reading the table as it is now), and one that starts after
 * it waits for the chunk's commit. A table gone between chunks fails the read naming the table and the
 * remedy.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlSnapshotDdlITCase {

    @Test
    void aChunkWaitingWhileACopyingAlterHoldsTheTableReadsTheTableAfterIt(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE rw (id INT PRIMARY KEY, b INT)", "INSERT INTO rw VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "rw");
        List<ChangeEvent> rows = new CopyOnWriteArrayList<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession();
                Connection ddl = db.admin(); Statement s = ddl.createStatement()) {
            TableDescription described = session.describe(table); // planned before the ALTER
            s.execute("LOCK TABLES rw WRITE");
            CompletableFuture<MySqlPosition> chunk = CompletableFuture.supplyAsync(
                    () -> session.readChunk(described, List.of("id"), null, null, rows::add));
            awaitMetadataLockWait(db);
            s.execute("ALTER TABLE rw MODIFY b BIGINT, ALGORITHM=COPY");
            s.execute("UNLOCK TABLES");
            chunk.get(30, TimeUnit.SECONDS); // the ALTER lies between the chunk's positions: its snapshot opened again
        }
        assertThat(rows).extracting(e -> e.after().get("id")).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
        assertThat(rows).allSatisfy(e -> assertThat(e.shape().column("b").orElseThrow().dataType()).startsWith("bigint"));
    }

    /**
     * Two columns swapping names in place (metadata only, so InnoDB reads the table through an older snapshot)
     * by a statement that starts right after the chunk's end position was read: it waits for the chunk's
     * commit, and the chunk's values are read under the names they had at that position. Without the lock the
     * rename ended at once, before the chunk's rows were selected by name.
     */
    @Test
    void columnsRenamedAfterTheChunksEndPositionWaitForTheChunk(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE sw (id INT PRIMARY KEY, a INT, b INT)", "INSERT INTO sw VALUES (1, 10, 20), (2, 11, 21)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        List<ChangeEvent> rows = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> renames = new CopyOnWriteArrayList<>();
        List<Boolean> renamedBeforeRows = new CopyOnWriteArrayList<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            TableDescription described = session.describe(TableId.of(db.name(), db.name(), "sw"));
            ChunkReader.afterEndRead = () -> {
                CompletableFuture<Void> rename = CompletableFuture.runAsync(() -> {
                    try {
                        db.execute("ALTER TABLE sw CHANGE a b INT, CHANGE b a INT");
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                });
                renames.add(rename);
                try {
                    rename.get(1500, TimeUnit.MILLISECONDS);
                } catch (TimeoutException waiting) {
                    // waits for the chunk's commit
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                renamedBeforeRows.add(rename.isDone());
            };
            try {
                session.readChunk(described, List.of("id"), null, null, rows::add);
            } finally {
                ChunkReader.afterEndRead = null;
            }
        }
        renames.get(0).get(30, TimeUnit.SECONDS);
        assertThat(renamedBeforeRows).containsExactly(false);
        assertThat(rows).extracting(e -> List.of(e.after().get("id"), e.after().get("a"), e.after().get("b")))
                .containsExactlyInAnyOrder(List.of(1L, 10L, 20L), List.of(2L, 11L, 21L));
        assertThat(db.queryValue("SELECT a FROM sw WHERE id = 1")).as("the rename took place after the chunk").isEqualTo("20");
    }

    @Test
    void aTableDroppedOrRenamedBetweenChunksFailsTheNextChunkNamingIt(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE gone (id INT PRIMARY KEY)", "INSERT INTO gone VALUES (1), (2)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "gone");
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            TableDescription described = session.describe(table);
            session.readChunk(described, List.of("id"), null, new Object[] {1L}, e -> { });
            db.execute("DROP TABLE gone");
            assertThatThrownBy(() -> session.readChunk(described, List.of("id"), new Object[] {1L}, null, e -> { }))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("Table " + db.name() + ".gone was dropped or renamed while its snapshot was read")
                    .hasMessageContaining("Start the job without state");
            // renamed away between chunks: the same
            db.execute("CREATE TABLE moved (id INT PRIMARY KEY)", "INSERT INTO moved VALUES (1), (2)");
            TableDescription moved = session.describe(TableId.of(db.name(), db.name(), "moved"));
            session.readChunk(moved, List.of("id"), null, new Object[] {1L}, e -> { });
            db.execute("RENAME TABLE moved TO moved_away");
            assertThatThrownBy(() -> session.readChunk(moved, List.of("id"), new Object[] {1L}, null, e -> { }))
                    .hasMessageContaining("Table " + db.name() + ".moved was dropped or renamed while its snapshot was read");
            // gone when the next chunk's end is planned: the same failure at once, not a connection failure retried
            db.execute("CREATE TABLE planned (id INT PRIMARY KEY)", "INSERT INTO planned VALUES (1), (2), (3)");
            TableDescription planned = session.describe(TableId.of(db.name(), db.name(), "planned"));
            assertThat(session.nextChunkEnd(planned, List.of("id"), null, 1)).containsExactly(1L);
            db.execute("DROP TABLE planned");
            assertThatThrownBy(() -> session.nextChunkEnd(planned, List.of("id"), new Object[] {1L}, 1))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("Table " + db.name() + ".planned was dropped or renamed while its snapshot was read");
        }
    }

    /**
     * A latin1 text key converted to utf8mb4 between two chunk ends (found by an adversarial probe): the next end
     * fails the snapshot naming the key's order then and now, as one planned in the new order would not follow the
     * ends before it (latin1_bin orders '€' after 'z', utf8mb4_bin before). Before, the session decoded the ends with
     * the description it kept from before the conversion, and a decoded end could equal the previous one: the
     * snapshot planned the same empty chunk forever. A chunk planned before the conversion and read after it fails too.
     */
    @Test
    void aTextKeyConvertedToAnotherCharacterSetBetweenChunkEndsFailsItsNextEndAndItsRead(MySqlDatabase db)
            throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        db.execute("CREATE TABLE cs (k VARCHAR(20) CHARACTER SET latin1 COLLATE latin1_bin PRIMARY KEY)");
        List<String> keys = new java.util.ArrayList<>(List.of("a"));
        for (int c = 0xC0; c <= 0xFF; c++) {
            keys.add("x" + (char) c);
        }
        db.execute("INSERT INTO cs VALUES ('" + String.join("'), ('", keys) + "')");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            TableDescription described = session.describe(TableId.of(db.name(), db.name(), "cs"));
            Object[] end = session.nextChunkEnd(described, List.of("k"), null, 2);
            Object[] next = session.nextChunkEnd(described, List.of("k"), end, 2);
            db.execute("ALTER TABLE cs CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            String change = "The chunk key of table " + db.name() + ".cs changed while its snapshot was read (k from "
                    + "text (collation latin1_bin) to text (collation utf8mb4_bin))";
            assertThatThrownBy(() -> session.nextChunkEnd(described, List.of("k"), next, 2))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining(change).hasMessageContaining("Start the job without its state");
            assertThatThrownBy(() -> session.readChunk(described, List.of("k"), end, next, e -> { }))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining(change);
            TableDescription now = session.describe(TableId.of(db.name(), db.name(), "cs"));
            List<String> read = new java.util.ArrayList<>();
            session.readChunk(now, List.of("k"), end, next, e -> read.add((String) e.after().get(0)));
            assertThat(read).as("read in the order the source describes now").containsExactly(keys.get(2), keys.get(3));
        }
    }

    private static void awaitMetadataLockWait(MySqlDatabase db) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            String waiting = db.queryValue("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                    + "WHERE STATE LIKE 'Waiting for table metadata lock%'");
            if (!"0".equals(waiting)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("No session waited for the table's metadata lock");
    }
}
