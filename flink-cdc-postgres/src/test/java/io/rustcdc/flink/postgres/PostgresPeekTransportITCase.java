package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code wal.transport} = {@code sql-peek} gives what a replication stream gives: a random workload
 * (multi-statement transactions, key moves, rollbacks, a transaction of 12,000 rows, a column added,
 * a truncate, logical messages in and outside transactions) read through two slots created together,
 * one streamed and one peeked, yields the same events with the same positions and transaction ends;
 * either stream reopened at one of its positions (inside a transaction, after a message outside any,
 * and, peeked, after a confirmation has advanced the slot), given the shapes its events showed before,
 * yields exactly the rest, schema changes included. Replay:
 * -Drustcdc.peek.seed=N.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresPeekTransportITCase {
    private static final TableFilter TABLES = TableFilter.all();

    @Test
    void peekedChangesAreTheStreamedOnesAndResumeAtAnyPosition(PostgresDatabase db) throws Exception {
        long seed = Long.getLong("rustcdc.peek.seed", System.nanoTime());
        System.out.println("PostgresPeekTransportITCase seed " + seed + " (replay with -Drustcdc.peek.seed=" + seed + ")");
        Random random = new Random(seed);
        db.execute("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, qty int)",
                "CREATE TABLE other (id int PRIMARY KEY)",
                "ALTER TABLE items OWNER TO " + db.replicationUser(), "ALTER TABLE other OWNER TO " + db.replicationUser());
        PostgresConnector streamed = connector(db, "peek_streamed", WalTransport.STREAMING);
        PostgresConnector peeked = connector(db, "peek_peeked", WalTransport.SQL_PEEK);
        PostgresPosition streamedStart = prepare(db, streamed);
        PostgresPosition peekedStart = prepare(db, peeked);

        write(db, random);

        List<StreamRecord<PostgresPosition>> expected;
        try (ChangeStream<PostgresPosition> stream = streamed.openStream(streamedStart, TABLES)) {
            expected = untilSentinel(stream);
        }
        List<StreamRecord<PostgresPosition>> actual;
        try (ChangeStream<PostgresPosition> stream = peeked.openStream(peekedStart, TABLES)) {
            actual = untilSentinel(stream);
        }
        assertSame(actual, expected, "seed " + seed);
        assertThat(actual.stream().filter(r -> r.event() != null && r.event().op() == Op.SCHEMA_CHANGE)).isNotEmpty();

        // reopened past the large transaction, whose 12,000 changes a peek returns again until a confirmation
        int bigEnd = 0;
        while (actual.get(bigEnd).event() == null || actual.get(bigEnd).event().op() != Op.INSERT
                || !actual.get(bigEnd).event().table().table().equals("items")
                || !Long.valueOf(111999).equals(actual.get(bigEnd).event().after().get("id"))) {
            bigEnd++;
        }
        List<Integer> reopenAt = new ArrayList<>();
        for (int i = bigEnd; i < actual.size() - 1 && reopenAt.size() < 3; i++) {
            // after a message outside any transaction, which may end where the next transaction's commit starts
            if (actual.get(i).event() != null && actual.get(i).event().op() == Op.MESSAGE
                    && actual.get(i).event().transaction() == null) {
                reopenAt.add(i);
            }
        }
        // the last record is the sentinel's transaction end, the one before it the sentinel row: a reopen after
        // the sentinel row would never see it, so the positions picked are before it
        int beforeSentinel = actual.size() - 2;
        for (int i = 0; i < 3; i++) {
            reopenAt.add(bigEnd + random.nextInt(beforeSentinel - bigEnd));
        }
        for (int i = 1; i < actual.size(); i++) {
            if (isSchemaChange(actual.get(i))) {
                reopenAt.add(i - 1); // just before the ALTER's schema change: told from the shapes before
                break;
            }
        }
        for (int picked : reopenAt) { // reopened at a position, either way: exactly what follows it
            // not at a schema change, whose position is the record's before it: which of the two a position
            // follows is not told (a reopen there gives the schema change again)
            int at = isSchemaChange(actual.get(picked)) ? picked - 1 : picked;
            try (ChangeStream<PostgresPosition> stream = peeked.openStream(actual.get(at).position(), TABLES)) {
                stream.resumeShapes(shapesUpTo(actual, at));
                assertSame(untilSentinel(stream), actual.subList(at + 1, actual.size()),
                        "seed " + seed + ", peeked, reopened after record " + at);
            }
            try (ChangeStream<PostgresPosition> stream = streamed.openStream(expected.get(at).position(), TABLES)) {
                // a replication stream reopened between a table's last change before an ALTER and its first after
                // it is sent only the new relation: the shapes its events showed before tell the change
                stream.resumeShapes(shapesUpTo(expected, at));
                assertSame(untilSentinel(stream), expected.subList(at + 1, expected.size()),
                        "seed " + seed + ", streamed, reopened after record " + at);
            }
        }

        int confirmed = actual.size() / 2 + random.nextInt(beforeSentinel - actual.size() / 2);
        confirmed = isSchemaChange(actual.get(confirmed)) ? confirmed - 1 : confirmed;
        PostgresPosition position = actual.get(confirmed).position();
        try (ChangeStream<PostgresPosition> stream = peeked.openStream(peekedStart, TABLES)) {
            untilSentinel(stream);
            stream.confirm(position);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!position.lsn().equals(confirmedFlush(db, "peek_peeked"))) { // the next call advances the slot
                assertThat(System.nanoTime()).as("seed %d: the slot never reached %s", seed, position).isLessThan(deadline);
                stream.poll(Duration.ofMillis(100));
            }
        }
        try (ChangeStream<PostgresPosition> stream = peeked.openStream(position, TABLES)) {
            assertSame(untilSentinel(stream), actual.subList(confirmed + 1, actual.size()),
                    "seed " + seed + ", reopened after the confirmed record " + confirmed);
        }
    }

    private static PostgresConnector connector(PostgresDatabase db, String slot, WalTransport transport) {
        return PostgresConnector.create(PostgresTestConfigs.builder(db).slotName(slot).publicationName("peek")
                .createSlotIfMissing(true).createPublicationIfMissing(true).captureLogicalMessages(true)
                .walTransport(transport).build());
    }

    private static PostgresPosition prepare(PostgresDatabase db, PostgresConnector connector) {
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            return session.prepareStream(List.of(TableId.of(db.name(), "public", "items"),
                    TableId.of(db.name(), "public", "other")), false);
        }
    }

    /** The random workload, then the sentinel row {@code other.id = -1}. */
    private static void write(PostgresDatabase db, Random random) throws Exception {
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            int alterAt = 5 + random.nextInt(20);
            int bigAt = random.nextInt(10);
            for (int t = 0; t < 30; t++) {
                if (t == bigAt) {
                    s.execute("INSERT INTO items SELECT g, 'n' || g, g FROM generate_series(100000, 111999) g");
                    c.commit();
                }
                if (t == alterAt) {
                    s.execute("ALTER TABLE items ADD COLUMN note text");
                    c.commit();
                }
                for (int n = 1 + random.nextInt(5); n > 0; n--) {
                    int id = random.nextInt(40);
                    switch (random.nextInt(7)) {
                        case 0:
                            s.execute("UPDATE items SET qty = qty + 1 WHERE id = " + id);
                            break;
                        case 1:
                            s.execute("UPDATE items SET id = " + (1000 + t * 10 + n) + " WHERE id = " + id);
                            break;
                        case 2:
                            s.execute("DELETE FROM items WHERE id = " + id);
                            break;
                        case 3:
                            s.execute("SELECT pg_logical_emit_message(" + random.nextBoolean() + ", 'p', 'm" + t + "')");
                            break;
                        case 4:
                            s.execute("INSERT INTO other VALUES (" + (t * 10 + n) + ")");
                            break;
                        default:
                            s.execute("INSERT INTO items VALUES (" + id + ", 'i" + t + "', " + random.nextInt(100)
                                    + ") ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty");
                    }
                }
                if (random.nextInt(10) == 0) {
                    c.rollback();
                } else {
                    c.commit();
                }
                if (t == 20) {
                    s.execute("TRUNCATE other");
                    c.commit();
                }
            }
            s.execute("INSERT INTO other VALUES (-1)");
            c.commit();
        }
    }

    /** The records up to the sentinel row's transaction end. */
    private static List<StreamRecord<PostgresPosition>> untilSentinel(ChangeStream<PostgresPosition> stream)
            throws InterruptedException {
        List<StreamRecord<PostgresPosition>> records = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        boolean sentinel = false;
        while (true) {
            assertThat(System.nanoTime()).as("the sentinel row within 60 s; read %d records", records.size())
                    .isLessThan(deadline);
            StreamRecord<PostgresPosition> r = stream.poll(Duration.ofMillis(200));
            if (r == null || (r.event() == null && !r.endsTransaction())) {
                continue; // the streamed side's keepalive positions, which peeking does not give
            }
            records.add(r);
            if (sentinel && r.endsTransaction()) {
                return records;
            }
            sentinel |= r.event() != null && r.event().table().table().equals("other") && r.event().after() != null
                    && Long.valueOf(-1).equals(r.event().after().get("id"));
        }
    }

    /** The same records, or the first that differs named (a whole list would be thousands of lines). */
    private static void assertSame(List<StreamRecord<PostgresPosition>> actual,
            List<StreamRecord<PostgresPosition>> expected, String context) {
        List<List<Object>> a = describe(actual);
        List<List<Object>> e = describe(expected);
        for (int i = 0; i < Math.min(a.size(), e.size()); i++) {
            assertThat(a.get(i)).as("%s: record %d of %d (expected %d)", context, i, a.size(), e.size())
                    .isEqualTo(e.get(i));
        }
        assertThat(a.size()).as("%s: records", context).isEqualTo(e.size());
    }

    private static boolean isSchemaChange(StreamRecord<PostgresPosition> r) {
        return r.event() != null && r.event().op() == Op.SCHEMA_CHANGE;
    }

    /** What the events up to record {@code at} showed of each table's shape, as the reader keeps it in state. */
    private static EmittedShapes shapesUpTo(List<StreamRecord<PostgresPosition>> records, int at) {
        EmittedShapes shapes = new EmittedShapes();
        for (StreamRecord<PostgresPosition> r : records.subList(0, at + 1)) {
            if (r.event() != null) {
                shapes.record(r.event());
            }
        }
        return shapes;
    }

    /** Each record as its event (every field, compared by equals) or its transaction end, and its position. */
    private static List<List<Object>> describe(List<StreamRecord<PostgresPosition>> records) {
        List<List<Object>> described = new ArrayList<>();
        for (StreamRecord<PostgresPosition> r : records) {
            described.add(List.of(r.event() != null ? r.event() : "transaction end", r.position()));
        }
        return described;
    }

    private static Lsn confirmedFlush(PostgresDatabase db, String slot) throws Exception {
        try (Connection c = db.admin(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT confirmed_flush_lsn::text FROM pg_replication_slots "
                        + "WHERE slot_name = '" + slot + "'")) {
            rs.next();
            return Lsn.valueOf(rs.getString(1));
        }
    }
}
