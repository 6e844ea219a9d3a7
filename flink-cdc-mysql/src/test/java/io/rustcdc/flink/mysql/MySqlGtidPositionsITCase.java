package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Positions and their GTIDs, tried to break with random writes: on Oracle MySQL every position's set
 * is exactly the GTIDs of the binlog before its file and offset (the server's own {@code SHOW BINLOG
 * EVENTS} and {@code GTID_SUBSET} as the oracle), and on both flavors a stream resumed from any of its
 * records (by GTIDs) delivers exactly the rest. Replay with {@code -Drustcdc.gtids.seed=<seed>}.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlGtidPositionsITCase {
    private static final long SEED = Long.getLong("rustcdc.gtids.seed", System.nanoTime());

    static {
        System.out.println("MySqlGtidPositionsITCase seed: -Drustcdc.gtids.seed=" + SEED);
    }

    @Test
    void everyPositionCarriesExactlyTheGtidsBeforeItWhileWritersCommit(MySqlDatabase db) throws Exception {
        assumeFalse(db.server().isMariaDb(), "MariaDB positions take their GTIDs from the server's BINLOG_GTID_POS");
        db.execute("CREATE TABLE w (id INT PRIMARY KEY, v INT)", "FLUSH BINARY LOGS"); // a short file for the oracle
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "w");
        List<MySqlPosition> taken = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> writers = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 2; i++) {
            Random random = new Random(SEED + i);
            Thread writer = new Thread(() -> {
                try {
                    write(db, random, stop);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "gtid-writer-" + i);
            writer.start();
            writers.add(writer);
        }
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
            taken.add(start);
            for (int i = 0; i < 3; i++) {
                taken.add(session.currentPosition());
                // a chunk's mark is a position with GTIDs too
                taken.add(session.readChunk(session.describe(table), List.of("id"), null, null, e -> { }));
            }
        } finally {
            stop.set(true);
            for (Thread writer : writers) {
                writer.join();
            }
        }
        assertThat(failures).isEmpty();
        MySqlGtidSet end = MySqlGtidSet.parse(db.queryValue("SELECT @@GLOBAL.gtid_executed"));
        // and boundaries the stream reports between transactions (a random sample: the oracle is slow)
        List<MySqlPosition> boundaries = new ArrayList<>();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            MySqlPosition last = start;
            while (!last.mysqlGtids().equals(end)) {
                assertThat(System.nanoTime()).as("the stream reaches %s (at %s)", end, last).isLessThan(deadline);
                StreamRecord<MySqlPosition> r = stream.poll(Duration.ofMillis(200));
                if (r != null && r.event() == null) {
                    last = r.position();
                    boundaries.add(last);
                }
            }
        }
        java.util.Collections.shuffle(boundaries, new Random(SEED));
        taken.addAll(boundaries.subList(0, Math.min(30, boundaries.size())));
        taken.add(boundaries.get(boundaries.size() - 1));
        Map<String, List<String[]>> events = new HashMap<>();
        try (Connection c = db.admin()) {
            for (MySqlPosition p : taken) {
                assertThat(p.gtidText()).as("seed %d: %s has GTIDs", SEED, p).isNotNull();
                String expected = gtidsBefore(c, events, p);
                assertThat(sameSet(c, expected, p.gtidText()))
                        .as("seed %d: %s carries the GTIDs before it, %s", SEED, p, expected).isTrue();
            }
        }
        assertThat(taken.stream().map(MySqlPosition::gtidText).distinct().count()).as("writers committed between")
                .isGreaterThan(5);
    }

    /**
     * Random transactions (several statements and rows each, DDL between), read once; then a stream
     * resumed from random records, between and inside transactions, delivers exactly the rest, with
     * the same positions and transaction metadata.
     */
    @Test
    void aStreamResumedFromAnyRecordDeliversExactlyTheRest(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE r (id INT PRIMARY KEY, v VARCHAR(20))", "CREATE TABLE s (id INT PRIMARY KEY)",
                "CREATE TABLE done (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(TableId.of(db.name(), db.name(), "r")), false);
        }
        Random random = new Random(SEED);
        int nextId = 1;
        List<Integer> live = new ArrayList<>();
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            for (int t = 0; t < 14; t++) {
                if (random.nextInt(6) == 0) {
                    s.execute("ALTER TABLE s ADD COLUMN c" + t + " INT"); // a transaction of its own
                    continue;
                }
                c.setAutoCommit(false);
                for (int statement = 1 + random.nextInt(3); statement > 0; statement--) {
                    int kind = live.isEmpty() ? 0 : random.nextInt(3);
                    if (kind == 0) {
                        List<String> rows = new ArrayList<>();
                        for (int n = 1 + random.nextInt(4); n > 0; n--) {
                            rows.add("(" + nextId + ", 'v" + random.nextInt(1000) + "')");
                            live.add(nextId++);
                        }
                        s.execute("INSERT INTO r VALUES " + String.join(", ", rows));
                        s.execute("INSERT INTO s (id) VALUES (" + nextId + ")");
                    } else if (kind == 1) {
                        s.execute("UPDATE r SET v = 'u" + random.nextInt(1000) + "' WHERE id <= "
                                + live.get(random.nextInt(live.size())));
                    } else {
                        s.execute("DELETE FROM r WHERE id = " + live.remove(random.nextInt(live.size())));
                    }
                }
                c.commit();
                c.setAutoCommit(true);
            }
            s.execute("INSERT INTO done VALUES (1)");
        }
        List<StreamRecord<MySqlPosition>> all = readToDone(connector, start);
        assertThat(all).as("seed %d", SEED).hasSizeGreaterThan(14);
        int inside = 0;
        while (inside < all.size() - 1 && all.get(inside).position().eventsTaken() == 0
                && all.get(inside).position().rowsTaken() < 2) {
            inside++;
        }
        assertThat(inside).as("seed %d: a record inside a transaction", SEED).isLessThan(all.size() - 1);
        for (int cut = 0; cut < 4; cut++) {
            int k = cut == 0 ? 0 : cut == 1 ? inside : random.nextInt(all.size() - 1);
            MySqlPosition from = all.get(k).position();
            assertThat(from.gtidText()).as("seed %d: resumed by GTIDs", SEED).isNotNull();
            List<StreamRecord<MySqlPosition>> rest = readToDone(connector, from);
            assertThat(describe(rest)).as("seed %d: resumed after record %d at %s", SEED, k, from)
                    .isEqualTo(describe(all.subList(k + 1, all.size())));
        }
    }

    /**
     * Oracle MySQL with {@code gtid_mode} not ON: transactions start with {@code ANONYMOUS_GTID}, positions
     * are file and offset only, and a restart inside a transaction or after a DDL statement still
     * delivers exactly the rest.
     */
    @Test
    void withoutGtidsPositionsAreFileAndOffsetAndAnonymousTransactionsStreamExactly(MySqlDatabase db) throws Exception {
        assumeFalse(db.server().isMariaDb(), "gtid_mode is Oracle MySQL's: MariaDB gives every transaction a GTID");
        db.execute("CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10))", "CREATE TABLE a_done (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        db.execute("SET GLOBAL gtid_mode = ON_PERMISSIVE", "SET GLOBAL gtid_mode = OFF_PERMISSIVE");
        try {
            MySqlPosition start;
            try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
                start = session.prepareStream(List.of(TableId.of(db.name(), db.name(), "a")), false);
            }
            assertThat(start.gtidText()).as("no GTID set describes a position once transactions may lack one").isNull();
            try (Connection c = db.admin();
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                s.execute("INSERT INTO a VALUES (1, 'a'), (2, 'b'), (3, 'c')");
                s.execute("INSERT INTO a VALUES (4, 'd')");
                c.commit();
                c.setAutoCommit(true);
                s.execute("ALTER TABLE a ADD COLUMN w INT");
                s.execute("INSERT INTO a VALUES (5, 'e', 5)");
                s.execute("INSERT INTO a_done VALUES (1)");
            }
            assertThat(db.query("SHOW BINLOG EVENTS IN '" + start.file() + "' FROM " + start.offset()))
                    .as("the server logged anonymous transactions").anyMatch(e -> e.contains("Anonymous_Gtid"));
            List<StreamRecord<MySqlPosition>> all = readToDone(connector, start);
            assertThat(all).extracting(r -> r.event().op().wireName() + " " + r.event().table().table())
                    .containsExactly("insert a", "insert a", "insert a", "insert a", "schema_change a", "insert a",
                            "insert a_done");
            assertThat(all).allSatisfy(r -> assertThat(r.position().gtidText()).isNull());
            assertThat(all.get(0).event().transaction().id()).as("a transaction without a GTID: where it starts")
                    .isEqualTo(all.get(0).position().file() + ":" + all.get(0).position().offset())
                    .isEqualTo(all.get(3).event().transaction().id());
            for (int k : new int[] {1, 3, 4}) { // inside the transaction, after it, after the DDL statement
                assertThat(describe(readToDone(connector, all.get(k).position()))).as("resumed after record %d", k)
                        .isEqualTo(describe(all.subList(k + 1, all.size())));
            }
        } finally {
            db.execute("SET GLOBAL gtid_mode = ON_PERMISSIVE", "SET GLOBAL gtid_mode = ON");
        }
    }

    /**
     * Tagged GTIDs (MySQL 8.3+, {@code SET gtid_next = 'AUTOMATIC:tag'}) between untagged ones: each
     * transaction streams under its own GTID, the positions carry the server's executed set exactly,
     * and a stream resumed after or inside a tagged transaction delivers exactly the rest. Sets with tags
     * print as the server prints them.
     */
    @Test
    void taggedTransactionsStreamAndResumeExactly(MySqlDatabase db) throws Exception {
        assumeFalse(db.server().isMariaDb(), "tagged GTIDs are Oracle MySQL's (8.3+)");
        db.execute("CREATE TABLE g (id INT PRIMARY KEY, v VARCHAR(10))", "CREATE TABLE g_done (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(TableId.of(db.name(), db.name(), "g")), false);
        }
        String uuid = db.queryValue("SELECT @@GLOBAL.server_uuid");
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO g VALUES (1, 'plain')");
            s.execute("SET gtid_next = 'AUTOMATIC:Tag_A'"); // tags are case-insensitive: the server writes tag_a
            c.setAutoCommit(false);
            s.execute("INSERT INTO g VALUES (2, 'a'), (3, 'a')");
            s.execute("UPDATE g SET v = 'a2' WHERE id = 1");
            c.commit();
            c.setAutoCommit(true);
            s.execute("SET gtid_next = 'AUTOMATIC'");
            s.execute("INSERT INTO g VALUES (4, 'plain')");
            s.execute("SET gtid_next = 'AUTOMATIC:b'");
            s.execute("DELETE FROM g WHERE id = 2");
            s.execute("SET gtid_next = 'AUTOMATIC:tag_a'");
            s.execute("INSERT INTO g VALUES (5, 'a')");
            s.execute("SET gtid_next = 'AUTOMATIC'");
            s.execute("INSERT INTO g_done VALUES (1)");
        }
        String executed = db.queryValue("SELECT @@GLOBAL.gtid_executed");
        assertThat(MySqlGtidSet.parse(executed).toString()).as("printed as the server prints it")
                .isEqualTo(executed.replaceAll("\\s", ""));
        List<StreamRecord<MySqlPosition>> all = readToDone(connector, start);
        assertThat(all).extracting(r -> r.event().op().wireName() + " " + row(r.event().after()) + " "
                + r.event().transaction().id().replace(uuid, "U").replaceAll(":\\d+$", ":n"))
                .containsExactly("insert 1|plain U:n", "insert 2|a U:tag_a:n", "insert 3|a U:tag_a:n",
                        "update 1|a2 U:tag_a:n", "insert 4|plain U:n", "delete null U:b:n", "insert 5|a U:tag_a:n",
                        "insert 1 U:n");
        MySqlPosition last = all.get(all.size() - 1).position();
        try (Connection c = db.admin()) {
            // inside the last transaction: the GTIDs before it, and its own
            assertThat(sameSet(c, last.gtidText() + "," + last.transactionGtid(), executed))
                    .as("%s carries the server's GTIDs %s", last, executed).isTrue();
        }
        for (int k : new int[] {1, 3, 4, 5, 6}) { // inside the tagged transaction, after it, after the other tags
            MySqlPosition from = MySqlPosition.parse(ServerFlavor.MYSQL, all.get(k).position().toString());
            assertThat(describe(readToDone(connector, from))).as("resumed after record %d at %s", k, from)
                    .isEqualTo(describe(all.subList(k + 1, all.size())));
        }
        Random random = new Random(SEED);
        try (Connection c = db.admin();
                PreparedStatement normalized = c.prepareStatement("SELECT GTID_SUBTRACT(?, '')")) {
            for (int i = 0; i < 20; i++) {
                String text = randomTaggedSet(random);
                normalized.setString(1, text);
                String server;
                try (ResultSet rs = normalized.executeQuery()) {
                    rs.next();
                    server = rs.getString(1).replaceAll("\\s", "");
                }
                assertThat(MySqlGtidSet.parse(text).toString()).as("seed %d: %s", SEED, text).isEqualTo(server);
                String other = randomTaggedSet(random);
                assertThat(MySqlGtidSet.parse(text).isSubsetOf(MySqlGtidSet.parse(other)))
                        .as("seed %d: %s in %s", SEED, text, other).isEqualTo(subset(c, text, other));
                String union = text + "," + other;
                assertThat(MySqlGtidSet.parse(text).isSubsetOf(MySqlGtidSet.parse(union))).isTrue();
            }
        }
    }

    /** A GTID set of two uuids, some intervals untagged, some under tags of mixed case. */
    private static String randomTaggedSet(Random random) {
        String[] uuids = {"3e11fa47-71ca-11e1-9e33-c80aa9429562", "3E11FA47-71CA-11E1-9E33-C80AA9429563"};
        String[] tags = {"", "a", "Tag_A", "tag_b", "_x9", "zz"};
        List<String> parts = new ArrayList<>();
        for (int n = 1 + random.nextInt(4); n > 0; n--) {
            StringBuilder part = new StringBuilder(uuids[random.nextInt(uuids.length)]);
            String tag = tags[random.nextInt(tags.length)];
            if (!tag.isEmpty()) {
                part.append(':').append(tag);
            }
            for (int k = 1 + random.nextInt(3); k > 0; k--) {
                long a = 1 + random.nextInt(12);
                part.append(':').append(a);
                if (random.nextBoolean()) {
                    part.append('-').append(a + random.nextInt(5));
                }
            }
            parts.add(part.toString());
        }
        return String.join(",", parts);
    }

    private static boolean subset(Connection c, String a, String b) throws Exception {
        try (PreparedStatement s = c.prepareStatement("SELECT GTID_SUBSET(?, ?)")) {
            s.setString(1, a);
            s.setString(2, b);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    private static List<StreamRecord<MySqlPosition>> readToDone(MySqlConnector connector, MySqlPosition from)
            throws InterruptedException {
        List<StreamRecord<MySqlPosition>> changes = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(from, TableFilter.all())) {
            while (true) {
                assertThat(System.nanoTime()).as("seed %d: the stream from %s reaches the last insert", SEED, from)
                        .isLessThan(deadline);
                StreamRecord<MySqlPosition> r = stream.poll(Duration.ofMillis(200));
                if (r == null || r.event() == null) {
                    continue;
                }
                changes.add(r);
                if (r.event().table().table().endsWith("done")) {
                    return changes;
                }
            }
        }
    }

    private static List<String> describe(List<StreamRecord<MySqlPosition>> records) {
        return records.stream().map(r -> {
            ChangeEvent e = r.event();
            return e.op().wireName() + " " + e.table().table() + " " + row(e.before()) + " -> " + row(e.after()) + " @"
                    + r.position() + " " + (e.transaction() == null ? "-" : e.transaction().id() + "#"
                    + e.transaction().index());
        }).collect(Collectors.toList());
    }

    private static String row(Row row) {
        if (row == null) {
            return "null";
        }
        List<String> values = new ArrayList<>();
        for (int i = 0; i < row.size(); i++) {
            values.add(String.valueOf(row.get(i)));
        }
        return String.join("|", values);
    }

    /** Random transactions of one to three statements until {@code stop}. */
    private static void write(MySqlDatabase db, Random random, AtomicBoolean stop) throws Exception {
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            while (!stop.get()) {
                try {
                    for (int statement = 1 + random.nextInt(3); statement > 0; statement--) {
                        int id = random.nextInt(200);
                        switch (random.nextInt(3)) {
                            case 0:
                                s.execute("INSERT INTO w VALUES (" + id + ", 0) ON DUPLICATE KEY UPDATE v = v + 1");
                                break;
                            case 1:
                                s.execute("UPDATE w SET v = v + 1 WHERE id BETWEEN " + id + " AND " + (id + 20));
                                break;
                            default:
                                s.execute("DELETE FROM w WHERE id = " + id);
                        }
                    }
                    c.commit();
                } catch (java.sql.SQLTransactionRollbackException deadlock) {
                    c.rollback(); // the two writers' ranges overlap; the next transaction goes on
                }
                Thread.sleep(random.nextInt(4)); // a pace that keeps the binlog (and the oracle's reading) short
            }
        }
    }

    /**
     * The oracle: the file's Previous_gtids and every Gtid event before the offset, as {@code SHOW
     * BINLOG EVENTS} lists them.
     */
    private static String gtidsBefore(Connection c, Map<String, List<String[]>> cache, MySqlPosition p)
            throws Exception {
        List<String[]> events = cache.get(p.file());
        if (events == null) {
            events = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + p.file() + "'")) {
                while (rs.next()) {
                    events.add(new String[] {rs.getString("Event_type"), rs.getString("Pos"), rs.getString("Info")});
                }
            }
            cache.put(p.file(), events);
        }
        List<String> parts = new ArrayList<>();
        for (String[] e : events) {
            if (Long.parseLong(e[1]) >= p.offset()) {
                break;
            }
            if (e[0].equals("Previous_gtids") && !e[2].isBlank()) {
                parts.add(e[2].replaceAll("\\s", ""));
            } else if (e[0].equals("Gtid")) { // SET @@SESSION.GTID_NEXT= 'uuid:n'
                parts.add(e[2].replaceAll(".*'(.+)'.*", "$1"));
            }
        }
        return String.join(",", parts);
    }

    private static boolean sameSet(Connection c, String a, String b) throws Exception {
        try (PreparedStatement s = c.prepareStatement("SELECT GTID_SUBSET(?, ?) AND GTID_SUBSET(?, ?)")) {
            s.setString(1, a);
            s.setString(2, b);
            s.setString(3, b);
            s.setString(4, a);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }
}
