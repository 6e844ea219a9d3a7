package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.spi.TableDescription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Table inheritance: a plain table {@code par} with a child {@code kid} ({@code INHERITS (par)}) holding rows
 * under keys of par's own and beyond them. pgoutput sends a child's changes under the child's name, also where
 * the publication lists only the parent; so a parent's snapshot is its own rows ({@code ONLY}), in every chunk
 * query (computed and counted chunk ends, the chunk's {@code COPY}), as is a TOAST re-select of its row; the
 * child, captured too, is a table of its own.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresInheritanceITCase {
    private static final String BIG = "repeat('0123456789', 600)";

    private PostgresDatabase db;

    @BeforeEach
    void createTables(PostgresDatabase db) {
        this.db = db;
        db.execute("DROP TABLE IF EXISTS par, kid CASCADE",
                "CREATE TABLE par (id int PRIMARY KEY, v text, n int)",
                "ALTER TABLE par ALTER COLUMN v SET STORAGE EXTERNAL",
                "CREATE TABLE kid (extra int) INHERITS (par)",
                "ALTER TABLE kid ADD PRIMARY KEY (id)",
                "INSERT INTO par SELECT g, 'par ' || g, g FROM generate_series(1, 20) g",
                // a key of par's, and keys beyond par's greatest
                "INSERT INTO kid SELECT g, 'kid ' || g, g, g FROM generate_series(11, 40) g",
                "INSERT INTO kid VALUES (2, 'kid 2', 2, 2)",
                "ANALYZE par", "ANALYZE kid",
                "ALTER TABLE par OWNER TO " + db.replicationUser(), "ALTER TABLE kid OWNER TO " + db.replicationUser());
    }

    @Test
    void aParentsSnapshotIsItsOwnRowsAndTheChildsItsOwn() {
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session =
                PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession()) {
            assertThat(session.discoverTables(TableFilter.of(List.of("public.par"), List.of()))).containsExactly(table("par"));
            TableDescription par = session.describe(table("par"));
            List<Long> own = range(1, 20);
            // computed ends (dense integer keys), then counted ones (a row filter): 4 chunks of 6 of par's 20 rows,
            // not ends among kid's keys too (the chunks' rows would still be par's, in more chunks)
            assertThat(keys(session, par, null)).as("par's rows, computed chunk ends").isEqualTo(own);
            assertThat(chunks(session, par, null)).as("chunks, computed ends").hasSize(4);
            assertThat(keys(session, par, "n > 0")).as("par's rows, counted chunk ends").isEqualTo(own);
            assertThat(chunks(session, par, "n > 0")).as("chunks, counted ends").hasSize(4);
            List<ChangeEvent> rows = chunks(session, par, null).stream().flatMap(List::stream).collect(Collectors.toList());
            assertThat(rows).allSatisfy(e -> assertThat(e.table()).isEqualTo(table("par")))
                    .allSatisfy(e -> assertThat((String) e.after().get("v")).startsWith("par "));
            TableDescription kid = session.describe(table("kid"));
            List<Long> kids = Stream.concat(Stream.of(2L), range(11, 40).stream()).collect(Collectors.toList());
            assertThat(keys(session, kid, null)).as("kid's rows, once, as kid's").isEqualTo(kids);
            assertThat(keys(session, kid, "n > 0")).isEqualTo(kids);
        }
    }

    @Test
    void aParentsStreamIsItsOwnChangesAndTheChildsUnderItsName() throws Exception {
        PostgresConnector parOnly = reselecting("inh_par");
        PostgresConnector both = reselecting("inh_both");
        PostgresPosition parStart;
        PostgresPosition bothStart;
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = parOnly.openSession()) {
            parStart = session.prepareStream(List.of(table("par")), false);
        }
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = both.openSession()) {
            bothStart = session.prepareStream(List.of(table("par"), table("kid")), false);
        }
        db.execute("UPDATE ONLY par SET v = " + BIG + " WHERE id = 2", "UPDATE kid SET v = 'kid big' WHERE id = 2",
                // v unchanged and TOASTed: re-selected from par's own row 2, not kid's
                "UPDATE ONLY par SET n = -2 WHERE id = 2",
                "UPDATE kid SET v = 'kid changed' WHERE id = 11", "DELETE FROM kid WHERE id = 12",
                "INSERT INTO kid VALUES (41, 'kid 41', 41, 41)",
                "UPDATE par SET n = -13 WHERE id = 13", // par's row 13 and kid's
                "INSERT INTO par VALUES (100, 'last', 100)");
        String big = db.queryValue("SELECT " + BIG);
        try (ChangeStream<PostgresPosition> stream = parOnly.openStream(parStart,
                TableFilter.of(List.of("public.par"), List.of()))) {
            assertThat(untilLast(stream)).containsExactly("update par 2 " + big.length() + " 2",
                    "update par 2 " + big.length() + " -2", "update par 13 par 13 -13", "insert par 100 last 100");
        }
        try (ChangeStream<PostgresPosition> stream = both.openStream(bothStart, TableFilter.all())) {
            assertThat(untilLast(stream)).containsExactly("update par 2 " + big.length() + " 2",
                    "update kid 2 kid big 2", "update par 2 " + big.length() + " -2", "update kid 11 kid changed 11",
                    "delete kid 12", "insert kid 41 kid 41 41", "update par 13 par 13 -13", "update kid 13 kid 13 -13",
                    "insert par 100 last 100");
        }
    }

    /** The events up to the insert of par's row 100, each as op, table, key, v (its length when long) and n. */
    private static List<String> untilLast(ChangeStream<PostgresPosition> stream) throws InterruptedException {
        List<String> events = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && (events.isEmpty() || !events.get(events.size() - 1).contains(" 100 "))) {
            StreamRecord<PostgresPosition> r = stream.poll(Duration.ofMillis(200));
            if (r != null && r.event() != null) {
                ChangeEvent e = r.event();
                Row row = e.after() != null ? e.after() : e.before();
                String v = e.after() == null ? "" : " " + text(e.after()) + " " + e.after().get("n");
                events.add(e.op().name().toLowerCase(java.util.Locale.ROOT) + " " + e.table().table() + " "
                        + row.get("id") + v);
            }
        }
        return events;
    }

    private PostgresConnector reselecting(String name) {
        return PostgresConnector.create(PostgresTestConfigs.builder(db).slotName(name).publicationName(name)
                .createSlotIfMissing(true).createPublicationIfMissing(true).toastReselect(true).build());
    }

    /** Column v: its length when long, absent when not sent. */
    private static Object text(Row row) {
        if (!row.isPresent(row.type().indexOf("v"))) {
            return "absent";
        }
        String v = (String) row.get("v");
        return v.length() > 100 ? Integer.toString(v.length()) : v;
    }

    private TableId table(String name) {
        return TableId.of(db.name(), "public", name);
    }

    private static List<Long> range(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> (long) i).collect(Collectors.toList());
    }

    private static List<Long> keys(CatalogSession<?, ?> session, TableDescription table, String rowFilter) {
        return chunks(session, table, rowFilter).stream().flatMap(List::stream)
                .map(e -> ((Number) e.after().get("id")).longValue()).sorted().collect(Collectors.toList());
    }

    /** The table's rows as the source plans and reads its chunks of 6 by the key, chunk by chunk. */
    private static List<List<ChangeEvent>> chunks(CatalogSession<?, ?> session, TableDescription table, String rowFilter) {
        List<String> key = List.of("id");
        List<List<ChangeEvent>> chunks = new ArrayList<>();
        Object[] after = null;
        while (true) {
            Object[] upTo = session.nextChunkEnd(table, key, after, 6, rowFilter);
            List<ChangeEvent> rows = new ArrayList<>();
            session.readChunk(table, key, after, upTo, rowFilter, rows::add);
            chunks.add(rows);
            if (upTo == null) {
                return chunks;
            }
            after = upTo;
        }
    }
}
