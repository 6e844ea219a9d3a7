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
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Oracle MySQL with {@code gtid_mode = OFF} and {@code binlog_transaction_compression = ON}: each
 * transaction is an {@code ANONYMOUS_GTID} event and one {@code Transaction_payload_event} holding the
 * rest compressed. The stream delivers every change of them (a DDL statement too), with file-and-offset
 * positions, and a stream resumed from each record (inside a compressed transaction too) delivers exactly
 * the records after it. The test prints its seed; replay with {@code -Drustcdc.compressed.seed=<seed>}.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlCompressedAnonymousITCase {
    @Test
    void compressedTransactionsWithoutGtidsStreamExactlyAndResumeFromInsideThem(MySqlDatabase db) throws Exception {
        assumeFalse(db.server().isMariaDb(), "gtid_mode and Transaction_payload_event are Oracle MySQL's");
        long seed = Long.getLong("rustcdc.compressed.seed", System.nanoTime());
        System.out.println("MySqlCompressedAnonymousITCase seed " + seed + " (replay with -Drustcdc.compressed.seed="
                + seed + ")");
        Random random = new Random(seed);
        db.execute("CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(200), j JSON)", "CREATE TABLE a_done (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        String saved = db.queryValue("SELECT @@GLOBAL.binlog_transaction_compression");
        db.execute("SET GLOBAL gtid_mode = ON_PERMISSIVE", "SET GLOBAL gtid_mode = OFF_PERMISSIVE",
                "SET GLOBAL gtid_mode = OFF");
        try {
            MySqlPosition start;
            try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
                start = session.prepareStream(List.of(TableId.of(db.name(), db.name(), "a")), false);
            }
            assertThat(start.gtidText()).as("no GTID set describes a position without GTIDs").isNull();
            int changes = 0;
            try (Connection c = db.admin(); Statement s = c.createStatement()) {
                s.execute("SET SESSION binlog_transaction_compression = ON");
                c.setAutoCommit(false);
                int nextId = 1;
                for (int transaction = 0; transaction < 6; transaction++) {
                    for (int statement = 0, n = 1 + random.nextInt(3); statement < n; statement++) {
                        StringBuilder insert = new StringBuilder("INSERT INTO a (id, v, j) VALUES ");
                        int rows = 1 + random.nextInt(4);
                        for (int r = 0; r < rows; r++) {
                            insert.append(r == 0 ? "" : ", ").append("(").append(nextId++).append(", REPEAT('")
                                    .append((char) ('a' + random.nextInt(26))).append("', ").append(random.nextInt(200))
                                    .append("), JSON_OBJECT('k', ").append(random.nextInt()).append("))");
                        }
                        s.execute(insert.toString());
                        changes += rows;
                        if (random.nextBoolean()) {
                            int id = 1 + random.nextInt(nextId - 1);
                            changes += s.executeUpdate("UPDATE a SET v = CONCAT(v, 'x') WHERE id = " + id);
                        }
                    }
                    c.commit();
                    if (transaction == 2) {
                        s.execute("ALTER TABLE a ADD COLUMN w INT"); // a DDL statement between them (never compressed)
                        changes++;
                    }
                }
                c.setAutoCommit(true);
                s.execute("INSERT INTO a_done VALUES (1)");
                changes++;
            }
            List<String> events = db.query("SHOW BINLOG EVENTS IN '" + start.file() + "' FROM " + start.offset())
                    .stream().map(e -> String.join(" ", e)).collect(Collectors.toList());
            assertThat(events).as("the server logged anonymous compressed transactions")
                    .anyMatch(e -> e.contains("Anonymous_Gtid")).anyMatch(e -> e.contains("Transaction_payload"))
                    .noneMatch(e -> e.contains(" Gtid "));
            List<StreamRecord<MySqlPosition>> all = readToDone(connector, start);
            assertThat(all).as("seed %d", seed).hasSize(changes);
            assertThat(all).allSatisfy(r -> assertThat(r.position().gtidText()).isNull());
            assertThat(all).extracting(r -> r.event().op().wireName()).contains("insert", "update", "schema_change");
            assertThat(all.get(0).event().transaction().id()).as("a transaction without a GTID: where it starts")
                    .isEqualTo(all.get(0).position().file() + ":" + all.get(0).position().offset());
            // the rows as the table holds them now, from the last change of each key
            List<String> rows = db.query("SELECT id, v FROM a ORDER BY id").stream().map(r -> r.get(0) + "|" + r.get(1))
                    .collect(Collectors.toList());
            java.util.Map<Object, String> last = new java.util.TreeMap<>();
            for (StreamRecord<MySqlPosition> r : all) {
                String op = r.event().op().wireName();
                if ((op.equals("insert") || op.equals("update")) && r.event().table().table().equals("a")) {
                    last.put(r.event().after().get("id"), r.event().after().get("id") + "|" + r.event().after().get("v"));
                }
            }
            assertThat(new ArrayList<>(last.values())).as("seed %d: the stream's rows", seed).isEqualTo(rows);
            for (int k = 0; k < all.size() - 1; k++) { // from every record: inside, after and between transactions
                assertThat(describe(readToDone(connector, all.get(k).position())))
                        .as("seed %d: resumed after record %d at %s", seed, k, all.get(k).position())
                        .isEqualTo(describe(all.subList(k + 1, all.size())));
            }
        } finally {
            db.execute("SET GLOBAL gtid_mode = OFF_PERMISSIVE", "SET GLOBAL gtid_mode = ON_PERMISSIVE",
                    "SET GLOBAL gtid_mode = ON", "SET GLOBAL binlog_transaction_compression = " + saved);
        }
    }

    private static List<StreamRecord<MySqlPosition>> readToDone(MySqlConnector connector, MySqlPosition from)
            throws InterruptedException {
        List<StreamRecord<MySqlPosition>> changes = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(from, TableFilter.all())) {
            while (true) {
                assertThat(System.nanoTime()).as("the stream from %s reaches the last insert", from).isLessThan(deadline);
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
}
