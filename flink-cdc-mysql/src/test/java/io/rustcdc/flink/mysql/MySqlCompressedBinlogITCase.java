package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.rustcdc.flink.mysql.testing.CompressedBinlog;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The binlog with the server's compression on ({@link CompressedBinlog}: Oracle MySQL's compressed
 * transactions, MariaDB's compressed query and row events): the server check lets it through, random
 * inserts, updates (key moves too) and deletes of every kind of column stream exactly (replayed, they
 * give the table's rows as a snapshot reads them; each update's and delete's old row is the row the
 * stream last gave), a DDL statement is captured, a compressed transaction ends at the binlog's end,
 * and a stream resumed from any row inside one delivers exactly the rows after it. Each test prints
 * its seed; replay with {@code -Drustcdc.compressed.seed=<seed>}.
 */
@ExtendWith({MySqlExtension.class, CompressedBinlog.class})
@Timeout(180)
class MySqlCompressedBinlogITCase {
    private static final String COLUMNS = "id INT PRIMARY KEY, i BIGINT, u BIGINT UNSIGNED, d DECIMAL(30,10), "
            + "f DOUBLE, b BIT(12), s VARCHAR(300) CHARACTER SET utf8mb4, l VARCHAR(50) CHARACTER SET latin1, "
            + "bin VARBINARY(64), t MEDIUMTEXT, bl BLOB, e ENUM('x','y','z'), st SET('a','b','c'), j JSON, "
            + "dt DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME(4), y YEAR, dd DATE";
    private static final int VALUES = 18; // the columns after id

    @Test
    void theServerCheckPassesWithCompressionOn(MySqlDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            assertThatCode(() -> MySqlPrerequisites.check(c, db.server().isMariaDb() ? ServerFlavor.MARIADB
                    : ServerFlavor.MYSQL)).doesNotThrowAnyException();
        }
    }

    @Test
    void randomChangesOfEveryKindOfColumnStreamExactlyAndEndAtTheBinlogsEnd(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        Random random = seeded("changes");
        db.execute("CREATE TABLE typed (" + COLUMNS + ")");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId typed = TableId.of(db.name(), db.name(), "typed");
        MySqlPosition start = prepare(connector, typed);

        String ddl = "CREATE TABLE later (id INT PRIMARY KEY, note VARCHAR(100) COMMENT 'created while the stream "
                + "runs, long enough to be compressed \u00e9\uD83C\uDF89')";
        db.execute(ddl);
        int changes = 0;
        TreeSet<Integer> ids = new TreeSet<>();
        int nextId = 1;
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            s.execute("SET SESSION time_zone = '+00:00'");
            c.setAutoCommit(false);
            for (int transaction = 0; transaction < 8; transaction++) {
                for (int op = 0, ops = 1 + random.nextInt(5); op < ops; op++) {
                    int kind = ids.size() < 3 ? 0 : random.nextInt(4);
                    if (kind <= 1) { // an insert of several rows: one row event, or several for big rows
                        int rows = 1 + random.nextInt(8);
                        StringBuilder sql = new StringBuilder("INSERT INTO typed VALUES ");
                        for (int r = 0; r < rows; r++) {
                            sql.append(r == 0 ? "" : ", ").append(placeholders(VALUES + 1));
                        }
                        try (PreparedStatement insert = c.prepareStatement(sql.toString())) {
                            for (int r = 0; r < rows; r++) {
                                insert.setInt(r * (VALUES + 1) + 1, nextId);
                                ids.add(nextId++);
                                setValues(insert, r * (VALUES + 1) + 2, random);
                            }
                            insert.executeUpdate();
                        }
                        changes += rows;
                    } else if (kind == 2) { // a whole new row, the key moved now and then
                        int id = pick(ids, random);
                        int to = random.nextInt(3) == 0 ? nextId++ : id;
                        try (PreparedStatement update = c.prepareStatement("UPDATE typed SET i = ?, u = ?, d = ?, f = ?, "
                                + "b = ?, s = ?, l = ?, bin = ?, t = ?, bl = ?, e = ?, st = ?, j = ?, dt = ?, ts = ?, "
                                + "tm = ?, y = ?, dd = ?, id = ? WHERE id = ?")) {
                            setValues(update, 1, random);
                            update.setInt(VALUES + 1, to);
                            update.setInt(VALUES + 2, id);
                            update.executeUpdate();
                        }
                        ids.remove(id);
                        ids.add(to);
                        changes++;
                    } else {
                        int id = pick(ids, random);
                        s.executeUpdate("DELETE FROM typed WHERE id = " + id);
                        ids.remove(id);
                        changes++;
                    }
                }
                c.commit();
            }
        }
        List<String> end = db.binlogStatus();

        Map<Object, Row> replayed = new HashMap<>();
        List<StreamRecord<MySqlPosition>> records = new ArrayList<>();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            records.addAll(StreamTestSupport.records(stream, changes + 1, Duration.ofSeconds(60)));
            records.addAll(untilCommitted(stream));
        }
        List<ChangeEvent> events = records.stream().map(StreamRecord::event).filter(e -> e != null)
                .collect(Collectors.toList());
        assertThat(events.get(0).op()).isEqualTo(Op.SCHEMA_CHANGE);
        assertThat(events.get(0).table().table()).isEqualTo("later");
        assertThat(events.get(0).after().get("statement")).isEqualTo(ddl);
        for (ChangeEvent e : events.subList(1, events.size())) {
            assertThat(e.table()).isEqualTo(typed);
            if (e.op() != Op.INSERT) {
                assertThat(e.before()).as("the old row of %s", e).isEqualTo(replayed.remove(e.before().get("id")));
            }
            if (e.op() != Op.DELETE) {
                assertThat(replayed.put(e.after().get("id"), e.after())).as("a row of the key of %s", e).isNull();
            }
        }
        Map<Object, Row> snapshot = new HashMap<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            session.readChunk(session.describe(typed), List.of("id"), null, null,
                    e -> snapshot.put(e.after().get("id"), e.after()));
        }
        assertThat(snapshot.keySet()).containsExactlyInAnyOrderElementsOf(ids.stream().map(Long::valueOf)
                .collect(Collectors.toList()));
        for (Map.Entry<Object, Row> row : snapshot.entrySet()) {
            assertThat(replayed.get(row.getKey())).as("row %s", row.getKey()).isEqualTo(row.getValue());
        }
        // the last transaction's events carry the end of its payload (or compressed events): the commit is there
        MySqlPosition committed = records.get(records.size() - 1).position();
        assertThat(committed.file() + ":" + committed.offset()).isEqualTo(end.get(0) + ":" + end.get(1));
    }

    @Test
    void aStreamResumedFromAnyRowInsideACompressedTransactionDeliversExactlyTheRowsAfterIt(MySqlDatabase db)
            throws Exception {
        Random random = seeded("restart");
        db.execute("CREATE TABLE resumed (id INT PRIMARY KEY, v VARCHAR(200))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "resumed");
        MySqlPosition start = prepare(connector, table);
        int rows = 0;
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            // values of up to 199 characters, so that the UPDATE below appending one fits in VARCHAR(200)
            for (int statement = 0; statement < 6; statement++) { // one row event per statement, several rows each
                StringBuilder insert = new StringBuilder("INSERT INTO resumed VALUES ");
                for (int r = 0, n = 1 + random.nextInt(6); r < n; r++, rows++) {
                    insert.append(r == 0 ? "" : ", ").append("(").append(rows + 1).append(", REPEAT('")
                            .append((char) ('a' + random.nextInt(26))).append("', ").append(1 + random.nextInt(199))
                            .append("))");
                }
                s.execute(insert.toString());
            }
            s.execute("UPDATE resumed SET v = CONCAT(v, '!') WHERE id % 3 = 0");
            s.execute("DELETE FROM resumed WHERE id % 5 = 0");
            c.commit();
        }
        int changes = rows + rows / 3 + rows / 5;
        TableFilter only = TableFilter.of(List.of(db.name() + ".resumed"), List.of());
        List<StreamRecord<MySqlPosition>> all;
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, only)) {
            all = StreamTestSupport.records(stream, changes, Duration.ofSeconds(30)).stream()
                    .filter(r -> r.event() != null).collect(Collectors.toList());
        }
        assertThat(all).hasSize(changes);
        assertThat(all.stream().map(r -> r.position().offset()).distinct()).as("one transaction").hasSize(1);

        TreeSet<Integer> from = new TreeSet<>(List.of(0, changes - 2, changes - 1));
        while (from.size() < 8) {
            from.add(random.nextInt(changes));
        }
        for (int k : from) {
            List<String> expected = all.subList(k + 1, changes).stream().map(MySqlCompressedBinlogITCase::describe)
                    .collect(Collectors.toList());
            try (ChangeStream<MySqlPosition> stream = connector.openStream(all.get(k).position(), only)) {
                List<String> resumed = StreamTestSupport.events(stream, expected.size()).stream()
                        .map(e -> e.op().wireName() + " " + e.before() + " -> " + e.after()).collect(Collectors.toList());
                assertThat(resumed).as("resumed after change %d of %d at %s", k + 1, changes, all.get(k).position())
                        .isEqualTo(expected);
                if (k == changes - 1) {
                    StreamTestSupport.assertNoEvent(stream, Duration.ofMillis(500));
                }
            }
        }
    }

    private static String describe(StreamRecord<MySqlPosition> r) {
        return r.event().op().wireName() + " " + r.event().before() + " -> " + r.event().after();
    }

    /** Records until the position is between transactions again (the last one's commit). */
    private static List<StreamRecord<MySqlPosition>> untilCommitted(ChangeStream<MySqlPosition> stream)
            throws InterruptedException {
        List<StreamRecord<MySqlPosition>> records = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            StreamRecord<MySqlPosition> r = stream.poll(Duration.ofMillis(200));
            if (r != null) {
                records.add(r);
                if (r.event() == null && r.position().eventsTaken() == 0 && r.position().rowsTaken() == 0) {
                    return records;
                }
            }
        }
        throw new AssertionError("No commit after the last change: " + records);
    }

    private static MySqlPosition prepare(MySqlConnector connector, TableId table) {
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return session.prepareStream(List.of(table), false);
        }
    }

    private static Random seeded(String what) {
        long seed = Long.getLong("rustcdc.compressed.seed", System.nanoTime());
        System.out.println("MySqlCompressedBinlogITCase " + what + " seed " + seed
                + " (replay with -Drustcdc.compressed.seed=" + seed + ")");
        return new Random(seed);
    }

    private static String placeholders(int n) {
        return "(" + String.join(", ", java.util.Collections.nCopies(n, "?")) + ")";
    }

    private static int pick(TreeSet<Integer> ids, Random random) {
        return new ArrayList<>(ids).get(random.nextInt(ids.size()));
    }

    /** Random values for the columns after id, from parameter {@code at} on; each may be NULL. */
    private static void setValues(PreparedStatement p, int at, Random random) throws java.sql.SQLException {
        for (int i = 0; i < VALUES; i++) {
            if (random.nextInt(10) == 0) {
                p.setNull(at + i, java.sql.Types.VARCHAR);
                continue;
            }
            switch (i) {
                case 0:
                    p.setLong(at + i, random.nextInt(3) == 0 ? random.nextLong() : random.nextInt(1000) - 500);
                    break;
                case 1:
                    p.setString(at + i, Long.toUnsignedString(random.nextLong()));
                    break;
                case 2:
                    p.setString(at + i, (random.nextBoolean() ? "-" : "") + Math.abs(random.nextLong() % 100000000000000000L)
                            + "." + String.format("%010d", Math.abs(random.nextLong() % 10000000000L)));
                    break;
                case 3:
                    p.setDouble(at + i, random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20));
                    break;
                case 4:
                    p.setBytes(at + i, new byte[] {(byte) random.nextInt(16), (byte) random.nextInt(256)});
                    break;
                case 5:
                    p.setString(at + i, text(random, random.nextInt(300), true));
                    break;
                case 6:
                    p.setString(at + i, text(random, random.nextInt(50), false));
                    break;
                case 7: {
                    byte[] b = new byte[random.nextInt(65)];
                    random.nextBytes(b);
                    p.setBytes(at + i, b);
                    break;
                }
                case 8:
                    p.setString(at + i, text(random, random.nextInt(8) == 0 ? 5000 + random.nextInt(15000) : random.nextInt(100),
                            true));
                    break;
                case 9: {
                    byte[] b = new byte[random.nextInt(2000)];
                    random.nextBytes(b);
                    p.setBytes(at + i, b);
                    break;
                }
                case 10:
                    p.setString(at + i, "xyz".substring(random.nextInt(3)).substring(0, 1));
                    break;
                case 11:
                    p.setString(at + i, List.of("", "a", "b", "a,c", "a,b,c", "c").get(random.nextInt(6)));
                    break;
                case 12:
                    p.setString(at + i, "{\"k\": " + random.nextInt() + ", \"d\": " + random.nextDouble() + ", \"s\": \""
                            + text(random, random.nextInt(20), false).replace("\\", "").replace("\"", "") + "\", \"a\": [1, "
                            + "true, null, \"\u00e9\"]}");
                    break;
                case 13:
                    p.setString(at + i, String.format("%04d-%02d-%02d %02d:%02d:%02d.%06d", 1000 + random.nextInt(9000),
                            1 + random.nextInt(12), 1 + random.nextInt(28), random.nextInt(24), random.nextInt(60),
                            random.nextInt(60), random.nextInt(1000000)));
                    break;
                case 14:
                    p.setString(at + i, String.format("%04d-%02d-%02d %02d:%02d:%02d.%03d", 1971 + random.nextInt(66),
                            1 + random.nextInt(12), 1 + random.nextInt(28), random.nextInt(24), random.nextInt(60),
                            random.nextInt(60), random.nextInt(1000)));
                    break;
                case 15: {
                    int hours = random.nextInt(838);
                    p.setString(at + i, (random.nextBoolean() ? "-" : "") + String.format("%d:%02d:%02d.%04d", hours,
                            random.nextInt(60), random.nextInt(60), random.nextInt(10000)));
                    break;
                }
                case 16:
                    p.setInt(at + i, random.nextInt(10) == 0 ? 0 : 1901 + random.nextInt(255));
                    break;
                default:
                    p.setString(at + i, String.format("%04d-%02d-%02d", 1000 + random.nextInt(9000), 1 + random.nextInt(12),
                            1 + random.nextInt(28)));
            }
        }
    }

    /** Random text: words of ASCII, accented letters and (with {@code wide}) characters outside the BMP. */
    private static String text(Random random, int length, boolean wide) {
        StringBuilder s = new StringBuilder();
        while (s.codePointCount(0, s.length()) < length) {
            switch (random.nextInt(wide ? 8 : 6)) {
                case 0:
                    s.append(' ');
                    break;
                case 1:
                    s.append((char) (0xe0 + random.nextInt(0x1f))); // in latin1 too
                    break;
                case 6:
                    s.appendCodePoint(0x1f300 + random.nextInt(0x100));
                    break;
                case 7:
                    s.append((char) (0x4e00 + random.nextInt(0x5000)));
                    break;
                default:
                    s.append((char) ('a' + random.nextInt(26)));
            }
        }
        return s.toString();
    }
}
