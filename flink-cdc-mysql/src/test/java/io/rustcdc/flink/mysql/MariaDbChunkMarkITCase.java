package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A MariaDB chunk's mark is exactly its snapshot's position while other sessions read {@code SHOW
 * STATUS} (as the chunks of other readers and monitoring tools do): MariaDB writes {@code
 * binlog_snapshot_position} into an array all sessions share before it reads it out, so a chunk
 * marked with it alone was sometimes marked with another session's position (the consistency suite
 * lost a change that way). Writers increment counters, one transaction each, and note each one's
 * GTID; chunks are read while two connections run {@code SHOW STATUS} without pause, one of them in
 * snapshots of its own; every chunk's counters must be those of the last writer transactions before
 * the chunk's mark. The seed (which counters the writers increment) is printed; {@code -Drustcdc.chunkmark.seed=N} replays it.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MariaDbChunkMarkITCase {
    private static final int COUNTERS = 20;
    private static final int CHUNKS = 300;
    private static final int WRITERS = 2;

    @Test
    void everyChunkShowsExactlyTheTransactionsBeforeItsMark(MySqlDatabase db) throws Exception {
        Assumptions.assumeTrue(db.server().isMariaDb(), "binlog_snapshot_position is MariaDB's");
        long seed = Long.getLong("rustcdc.chunkmark.seed", new SecureRandom().nextLong() >>> 16);
        System.out.println("MariaDbChunkMarkITCase seed " + seed + " (replay with -Drustcdc.chunkmark.seed=" + seed + ")");
        db.execute("CREATE TABLE counters (id INT PRIMARY KEY, n INT NOT NULL)");
        StringBuilder insert = new StringBuilder("INSERT INTO counters VALUES ");
        for (int id = 0; id < COUNTERS; id++) {
            insert.append(id == 0 ? "" : ", ").append('(').append(id).append(", 0)");
        }
        db.execute(insert.toString());
        // by the GTID sequence number of each writer transaction: the counter it set, and to what
        Map<Long, int[]> written = new ConcurrentSkipListMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            threads.add(thread(() -> write(db, writer, new Random(seed + writer), written, stop)));
        }
        threads.add(thread(() -> showStatus(db, false, stop))); // writes the last commit's position there
        threads.add(thread(() -> showStatus(db, true, stop))); // writes its own snapshot's, an older one
        threads.forEach(Thread::start);
        Map<MySqlPosition, Map<Integer, Integer>> chunks = new HashMap<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session =
                // plaintext: the chunks' TLS handshakes with a busy server took most of the test's time
                MySqlConnector.create(MySqlTestConfigs.builder(db).tlsMode(TlsMode.DISABLE).build()).openSession()) {
            TableDescription table = session.describe(TableId.of(db.name(), db.name(), "counters"));
            for (int chunk = 0; chunk < CHUNKS; chunk++) {
                Map<Integer, Integer> rows = new TreeMap<>();
                MySqlPosition mark = session.readChunk(table, List.of("id"), null, null, e -> rows.put(
                        ((Number) e.after().get("id")).intValue(), ((Number) e.after().get("n")).intValue()));
                chunks.put(mark, rows);
            }
        } finally {
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
        }
        // compared once the writer has noted every transaction it committed
        assertThat(written).as("writer transactions").hasSizeGreaterThan(CHUNKS);
        List<String> wrong = new ArrayList<>();
        chunks.forEach((mark, rows) -> {
            Map<Integer, Integer> expected = before(written, mark.mariaDbGtids().sequence(0));
            if (!rows.equals(expected)) {
                wrong.add("chunk marked " + mark + " read " + rows + ", expected " + expected);
            }
        });
        assertThat(wrong).as("chunks whose rows differ from their mark (seed " + seed + ")").isEmpty();
    }

    /** The counters after the writer's transactions before sequence number {@code mark} (domain 0). */
    private static Map<Integer, Integer> before(Map<Long, int[]> written, long mark) {
        Map<Integer, Integer> counters = new TreeMap<>();
        for (int id = 0; id < COUNTERS; id++) {
            counters.put(id, 0);
        }
        written.forEach((sequence, change) -> {
            if (sequence <= mark) {
                counters.put(change[0], change[1]);
            }
        });
        return counters;
    }

    /** Writer {@code writer} increments the counters whose number leaves {@code writer} modulo {@link #WRITERS}. */
    private static void write(MySqlDatabase db, int writer, Random random, Map<Long, int[]> written,
            AtomicBoolean stop) {
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            int[] counters = new int[COUNTERS];
            while (!stop.get()) {
                int id = writer + WRITERS * random.nextInt(COUNTERS / WRITERS);
                s.execute("UPDATE " + db.name() + ".counters SET n = n + 1 WHERE id = " + id); // autocommit
                try (ResultSet rs = s.executeQuery("SELECT @@last_gtid")) {
                    rs.next();
                    String[] gtid = rs.getString(1).split("-");
                    if (!gtid[0].equals("0")) {
                        throw new IllegalStateException("The test expects GTID domain 0, not " + gtid[0]);
                    }
                    written.put(Long.parseLong(gtid[2]), new int[] {id, ++counters[id]});
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code SHOW STATUS} without pause, in snapshots opened anew every 50 statements with {@code inSnapshot}. */
    private static void showStatus(MySqlDatabase db, boolean inSnapshot, AtomicBoolean stop) {
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            for (int i = 0; !stop.get(); i++) {
                if (inSnapshot && i % 50 == 0) {
                    s.execute("COMMIT");
                    s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
                }
                s.executeQuery("SHOW STATUS LIKE 'binlog_snapshot_%'").close();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Thread thread(Runnable work) {
        Thread t = new Thread(work, "chunk-mark-test");
        t.setDaemon(true);
        return t;
    }

    /**
     * A chunk's window whose end is just past a new binlog file's header (a rotation, nothing written since): its
     * completion from the binlog reaches the end at the header's GTID_LIST or BINLOG_CHECKPOINT event. Until
     * 2026-12-06 it reconnected without end until something was written (found by a probe of waits on an idle server).
     */
    @Test
    void aChunkWindowEndingRightAfterABinlogRotationReachesItsEnd(MySqlDatabase db) throws Exception {
        Assumptions.assumeTrue(db.server().isMariaDb(), "the file/offset window is MariaDB's");
        db.execute("CREATE TABLE rot (id BIGINT PRIMARY KEY)", "INSERT INTO rot VALUES (1), (2), (3)");
        List<String> before = db.binlogStatus();
        db.execute("FLUSH BINARY LOGS");
        List<String> after = db.binlogStatus();
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        MySqlSourceConfig config = connector.config();
        try (java.sql.Connection catalogue = MySqlConnections.connect(config);
                io.rustcdc.flink.source.spi.CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            String server = BinlogServer.identity(catalogue, ServerFlavor.MARIADB);
            MySqlPosition low = MySqlPosition.at(ServerFlavor.MARIADB, before.get(0), Long.parseLong(before.get(1)))
                    .on(server);
            MySqlPosition high = MySqlPosition.at(ServerFlavor.MARIADB, after.get(0), Long.parseLong(after.get(1)))
                    .on(server);
            ChunkBackfill backfill = new ChunkBackfill(config, catalogue, new MySqlKeyPlacement(),
                    BinlogTables.charsets(catalogue), session.describe(io.rustcdc.flink.source.model.TableId.of(db.name(),
                            db.name(), "rot")), List.of("id"), null, null, List.of());
            org.assertj.core.api.Assertions.assertThat(org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(30), () -> backfill.applyFrom(low, high))).isTrue();
        }
    }
}
