package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.control.ControlResult;
import io.rustcdc.flink.source.control.SnapshotControl;
import io.rustcdc.flink.source.control.TableReadout;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The on-demand snapshot scenario of a table whose FIRST snapshot is stopped part-way, after rows of it went
 * downstream: rows it delivered are deleted and updated while it is stopped (also while no job runs, between a
 * savepoint and the restore from it) and while it is read again after a request; replayed by key, the changelog
 * must end equal to the table. Table {@code t3 (id int primary key, v text)} of {@link #ROWS} rows
 * ({@link #create}); the source reads it with a {@link ReadGate} or plain JSON, as the test's function builds it,
 * at parallelism 2 with small chunks and a short control interval.
 *
 * <p>The stop always comes part-way: the snapshot reads from the 100th on wait in the readers' task threads (the
 * gate) until the stop is applied, and a reader asks for its next chunk only once it emitted the last one.
 */
public final class StoppedPartWay {
    /** Rows of t3. */
    public static final int ROWS = 3000;
    private static final Duration ANSWER = Duration.ofSeconds(120);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private StoppedPartWay() {}

    /** Statements that create t3 and fill it, on PostgreSQL and MySQL alike. */
    public static List<String> create() {
        List<String> statements = new ArrayList<>(List.of("DROP TABLE IF EXISTS t3",
                "CREATE TABLE t3 (id int PRIMARY KEY, v text)"));
        for (int from = 1; from <= ROWS; from += 500) {
            statements.add("INSERT INTO t3 VALUES " + IntStream.range(from, Math.min(from + 500, ROWS + 1))
                    .mapToObj(i -> "(" + i + ", 'v" + i + "')").collect(Collectors.joining(", ")));
        }
        return statements;
    }

    /**
     * Runs the scenario: {@code name} is t3's name in the control requests; {@code sources} builds the source
     * with the deserializer given, on {@code control}.
     */
    public static void run(SqlDatabase db, String name, Path control, Path savepoints,
            Function<ChangeEventDeserializer<String>, CdcSource<String, ?, ?>> sources) throws Exception {
        JsonChangelog changelog = new JsonChangelog(Map.of("t3", List.of("id")));
        SnapshotControl client = SnapshotControl.at(control.toUri().toString());
        String savepoint;
        List<Integer> delivered;
        ReadGate.reset();
        ReadGate.holdAt = 100;
        try (RestorableJob job = RestorableJob.start(sources.apply(new ReadGate()), null)) {
            waitFor(job, changelog, () -> ReadGate.READS.get() >= 100, () -> "100 reads of t3");
            ControlResult stopped;
            try {
                stopped = await(job, changelog, client, client.stop(name));
            } finally {
                ReadGate.reset();
            }
            assertThat(stopped.applied()).as(stopped.toString()).isTrue();
            assertThat(stopped.previous()).as("part-way").containsEntry(name, TableReadout.SNAPSHOTTING);
            waitFor(job, changelog, () -> changelog.rows("t3").size() >= 50, () -> "rows of t3 went out");
            drainFor(job, changelog, Duration.ofSeconds(2));
            delivered = delivered(changelog);
            assertThat(delivered.size()).as("part of t3 went out").isBetween(50, ROWS - 1);
            assertThat(status(client, name)).isEqualTo(TableReadout.STOPPED);
            // while stopped: deletes and updates of rows downstream holds, an insert
            db.execute("DELETE FROM t3 WHERE id IN " + in(delivered.subList(0, 20)),
                    "UPDATE t3 SET v = 'stopped' WHERE id IN " + in(delivered.subList(20, 30)),
                    "INSERT INTO t3 VALUES (5000, 'inserted while stopped')");
            drainFor(job, changelog, Duration.ofSeconds(2));
            savepoint = job.stopWithSavepoint(savepoints);
            job.records.forEach(changelog::apply);
        } finally {
            ReadGate.reset();
        }
        // no job: deletes the restored job reads from the stream
        db.execute("DELETE FROM t3 WHERE id IN " + in(delivered.subList(30, 32)));
        try (RestorableJob job = RestorableJob.start(sources.apply(ChangeEventDeserializer.json()), savepoint)) {
            waitFor(job, changelog, () -> status(client, name).equals(TableReadout.STOPPED),
                    () -> "stopped after the restore: " + client.state());
            ControlResult requested = await(job, changelog, client, client.request(name));
            assertThat(requested.previous()).containsEntry(name, TableReadout.STOPPED);
            // while it is read again (or just before): deletes of rows the first, partial snapshot delivered
            db.execute("DELETE FROM t3 WHERE id IN " + in(delivered.subList(40, 43)),
                    "UPDATE t3 SET v = 'again' WHERE id IN (1100, 1150)");
            waitFor(job, changelog, () -> status(client, name).equals(TableReadout.CAPTURED),
                    () -> "read again: " + client.state());
            db.execute("DELETE FROM t3 WHERE id IN " + in(delivered.subList(43, 44)));
            Map<String, String> t3 = rows(db);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!changelog.rows("t3").equals(t3) && System.nanoTime() < end) {
                drainFor(job, changelog, Duration.ofMillis(500));
            }
            assertThat(changelog.rows("t3")).as(changelog.differences("t3", t3)).isEqualTo(t3);
        }
    }

    private static List<Integer> delivered(JsonChangelog changelog) {
        return changelog.rows("t3").keySet().stream().map(k -> Integer.parseInt(k.substring(0, k.length() - 1)))
                .sorted().toList();
    }

    private static String in(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(", ", "(", ")"));
    }

    /** t3's rows as the changelog keys and renders them. */
    private static Map<String, String> rows(SqlDatabase db) {
        Map<String, String> rows = new HashMap<>();
        for (List<String> row : db.query("SELECT id, v FROM t3")) {
            rows.put(row.get(0) + "|", MAPPER.createObjectNode().put("id", Integer.parseInt(row.get(0)))
                    .put("v", row.get(1)).toString());
        }
        return rows;
    }

    private static String status(SnapshotControl client, String table) {
        return client.state().stream().filter(t -> t.table().equals(table)).findFirst().map(TableReadout::status)
                .orElse("absent");
    }

    private static ControlResult await(RestorableJob job, JsonChangelog changelog, SnapshotControl client, String id)
            throws Exception {
        waitFor(job, changelog, () -> client.result(id).isPresent(), () -> "no result of " + id);
        return client.result(id).orElseThrow();
    }

    private static void drainFor(RestorableJob job, JsonChangelog changelog, Duration duration) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            String r = job.records.poll(50, TimeUnit.MILLISECONDS);
            if (r != null) {
                changelog.apply(r);
            }
        }
    }

    private static void waitFor(RestorableJob job, JsonChangelog changelog, BooleanSupplier done,
            Supplier<String> what) throws Exception {
        try {
            changelog.drainUntil(job.records, done, ANSWER);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ", " + what.get(), e);
        }
    }
}
