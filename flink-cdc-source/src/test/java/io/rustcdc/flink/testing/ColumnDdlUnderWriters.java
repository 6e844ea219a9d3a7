package io.rustcdc.flink.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Column DDL at random moments while writers change a table's rows, during its snapshot (between
 * small chunks, the reader held at a drawn read by {@link ReadGate}) and during the stream, judged by
 * {@link ShapedChangelog}: the changelog, schema changes applied, ends as the table's rows, with no
 * change lost or emitted twice and each schema change in order with the rows around it.
 *
 * <p>The table is {@code ddl_t (id INT PRIMARY KEY, n INT NOT NULL, c0 INT, c1 VARCHAR(20))}; the DDL
 * adds nullable columns and columns with a default, drops, widens ({@code INT} to {@code BIGINT},
 * {@code VARCHAR(20)} to {@code VARCHAR(40)}) and renames them, never {@code id} or {@code n}, always
 * to names never used before. The writers write the columns the table has since the last DDL
 * committed (a statement of the shape before fails and rolls back). Each run draws everything from a
 * seed printed before it starts and named in any failure; {@code -Drustcdc.ddl.seed=N} replays one,
 * {@code -Drustcdc.ddl.runs=N} makes N runs with new seeds (a soak).
 * The job runs at parallelism 1 on the test's MiniCluster with {@link ReadGate} as its deserializer.
 */
public final class ColumnDdlUnderWriters {
    public static final String SEED_PROPERTY = "rustcdc.ddl.seed";
    public static final String RUNS_PROPERTY = "rustcdc.ddl.runs";
    public static final String TABLE = "ddl_t";
    private static final Duration CONVERGENCE = Duration.ofSeconds(90);

    /** The statement that changes a column's type, keeping it nullable. */
    @FunctionalInterface
    public interface Retype {
        String statement(String table, String column, String type);
    }


    private final DdlServer target;
    private final Retype retype;
    private final long seed;
    private final Random random;
    private volatile List<DdlColumn> columns = List.of(new DdlColumn("c0", "INT"), new DdlColumn("c1", "VARCHAR(20)"));
    private int nextName = 2;
    private final List<String> applied = new CopyOnWriteArrayList<>(); // added to by a DDL thread

    private ColumnDdlUnderWriters(DdlServer target, Retype retype, long seed) {
        this.target = target;
        this.retype = retype;
        this.seed = seed;
        this.random = new Random(seed);
    }

    /**
     * One run with the seed of {@link #SEED_PROPERTY} (or several: {@code N,M}), else {@link #RUNS_PROPERTY}
     * runs (default 1), each with a new seed.
     */
    public static void run(DdlServer target, Retype retype) throws Exception {
        long[] seeds = Seeds.of(SEED_PROPERTY, RUNS_PROPERTY, 1);
        System.out.println("Column DDL under writers on " + target.name() + ": seeds " + Arrays.toString(seeds)
                + " (replay one with -D" + SEED_PROPERTY + "=<seed>)");
        for (long seed : seeds) {
            String run = "ddl" + Long.toHexString(seed);
            try {
                new ColumnDdlUnderWriters(target, retype, seed).runOne(run);
            } finally {
                target.finish(run);
            }
        }
    }

    private void runOne(String run) throws Exception {
        System.out.println("Column DDL under writers on " + target.name() + ", seed " + seed + ":");
        int rows = 200 + random.nextInt(200);
        int chunkSize = 8 + random.nextInt(25);
        int snapshotDdl = 1 + random.nextInt(3);
        int streamDdl = 2 + random.nextInt(3);
        List<Long> holds = new ArrayList<>();
        for (int i = 0; i < snapshotDdl; i++) {
            holds.add(1L + random.nextInt(rows / 2));
        }
        holds.sort(null);
        System.out.println("  " + rows + " rows, chunks of " + chunkSize + ", DDL at reads " + holds + " and "
                + streamDdl + " during the stream");
        createTable(rows);
        ReadGate.reset();
        ShapedChangelog changelog = new ShapedChangelog(TABLE, "id");
        long started = System.nanoTime();
        try (SourceJob job = new SourceJob(target.source(TABLE, chunkSize, run), 1);
                ConcurrentWriters writers = new ConcurrentWriters(target::connect, 2, 120_000, 8,
                        r -> statement(r, rows))) {
            for (long hold : holds) {
                ReadGate.holdAt = Math.max(hold, ReadGate.READS.get() + 1);
                long at = ReadGate.holdAt;
                pumpUntil(job, changelog, "the snapshot's read " + at, () -> ReadGate.READS.get() >= at);
                Ddl next = drawDdl(); // drawn here: the seed gives the same statements in the same order
                CompletableFuture<Void> ddl = CompletableFuture.runAsync(() -> run(next));
                // the reader goes on after a while, whether the DDL ran between chunks or waits for one
                long release = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(random.nextInt(300));
                while (!ddl.isDone() && System.nanoTime() < release) {
                    Thread.sleep(5);
                }
                ReadGate.holdAt = Long.MAX_VALUE;
                pumpUntil(job, changelog, "the DDL during the snapshot", ddl::isDone);
                ddl.get();
            }
            ReadGate.holdAt = Long.MAX_VALUE;
            pumpUntil(job, changelog, "the stream's first event", () -> ReadGate.STREAMED.get() > 0);
            for (int i = 0; i < streamDdl; i++) {
                long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(600));
                pumpUntil(job, changelog, "the moment of the next DDL", () -> System.nanoTime() >= at);
                run(drawDdl());
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500 + random.nextInt(500));
            pumpUntil(job, changelog, "the writers' last moments", () -> System.nanoTime() >= end);
            writers.endNow();
            if (writers.transactions() < 50) {
                throw new AssertionError(context("the writers committed only " + writers.transactions() + " transactions",
                        changelog));
            }
            Map<String, Map<String, String>> expected = read();
            long deadline = System.nanoTime() + CONVERGENCE.toNanos();
            while (!changelog.reached(expected)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(context("the changelog did not reach the table's rows within " + CONVERGENCE
                            + ": " + changelog.differences(expected), changelog));
                }
                pump(job, changelog, 200);
            }
            if (changelog.violationCount() > 0) {
                throw new AssertionError(context("the changelog reached the table's rows, but", changelog));
            }
            List<String> finalColumns = new ArrayList<>(expected.values().iterator().next().keySet());
            // (no shape when the last change had none and no row followed it: the rows held were compared above)
            if (changelog.shape() != null && !new TreeSet<>(changelog.shape()).equals(new TreeSet<>(finalColumns))) {
                throw new AssertionError(context("the last schema change's shape " + changelog.shape()
                        + " is not the table's " + finalColumns, changelog));
            }
            System.out.printf("  passed in %d s: %d transactions, events %s, changes %s, %d rows with a column "
                    + "added since their last change%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), writers.transactions(), changelog.ops(),
                    changelog.changes(), changelog.rowsWithUnknownValues());
        } finally {
            ReadGate.reset();
        }
    }

    private String context(String what, ShapedChangelog changelog) {
        return "Column DDL under writers on " + target.name() + " failed: " + what + "\n  " + changelog.violationCount()
                + " violations, first ones:\n    " + String.join("\n    ", changelog.violations()) + "\n  events "
                + changelog.ops() + ", changes " + changelog.changes() + "\n  DDL: " + String.join("; ", applied)
                + "\n  replay it with -D" + SEED_PROPERTY + "=" + seed;
    }

    private void createTable(int rows) throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, n INT NOT NULL, c0 INT, c1 VARCHAR(20))");
            target.prepare(s, TABLE);
            StringBuilder insert = new StringBuilder("INSERT INTO " + TABLE + " VALUES ");
            for (int i = 1; i <= rows; i++) {
                insert.append(i == 1 ? "" : ", ").append('(').append(i).append(", 0, ").append(i).append(", 's").append(i)
                        .append("')");
            }
            s.execute(insert.toString());
        }
    }

    private record Ddl(String statement, List<DdlColumn> columns) {}

    /** Draws a column DDL statement for the table as it is, and the columns it leaves. */
    private Ddl drawDdl() {
        List<DdlColumn> now = new ArrayList<>(columns);
        String statement;
        int kind = random.nextInt(6);
        List<DdlColumn> widenable = now.stream().filter(c -> !c.type().equals("BIGINT") && !c.type().equals("VARCHAR(40)"))
                .toList();
        if (kind == 2 && !now.isEmpty()) {
            DdlColumn gone = now.remove(random.nextInt(now.size()));
            statement = "ALTER TABLE " + TABLE + " DROP COLUMN " + gone.name();
        } else if (kind == 3 && !widenable.isEmpty()) {
            DdlColumn c = widenable.get(random.nextInt(widenable.size()));
            String type = c.type().equals("INT") ? "BIGINT" : "VARCHAR(40)";
            now.set(now.indexOf(c), new DdlColumn(c.name(), type));
            statement = retype.statement(TABLE, c.name(), type);
        } else if (kind == 4 && !now.isEmpty()) {
            int i = random.nextInt(now.size());
            DdlColumn c = now.get(i);
            DdlColumn renamed = new DdlColumn("r" + nextName++, c.type());
            now.set(i, renamed);
            statement = "ALTER TABLE " + TABLE + " RENAME COLUMN " + c.name() + " TO " + renamed.name();
        } else {
            String type = random.nextBoolean() ? "INT" : "VARCHAR(20)";
            DdlColumn added = new DdlColumn("c" + nextName++, type);
            now.add(added);
            boolean withDefault = kind == 1 || kind == 5;
            statement = "ALTER TABLE " + TABLE + " ADD COLUMN " + added.name() + " " + type
                    + (withDefault ? " DEFAULT " + (type.equals("INT") ? "7" : "'d'") : "");
        }
        return new Ddl(statement, List.copyOf(now));
    }

    /** Runs {@code ddl}, then lets the writers write the columns it leaves. */
    private void run(Ddl ddl) {
        String statement = ddl.statement;
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            throw new AssertionError("DDL failed: " + statement, e);
        }
        applied.add(statement);
        columns = ddl.columns;
        System.out.println("  " + statement + " (at read " + ReadGate.READS.get() + ", stream event "
                + ReadGate.STREAMED.get() + ")");
    }

    /** A writer's statement on the columns the table had after the last DDL. */
    private String statement(Random r, int rows) {
        List<DdlColumn> now = columns;
        int id = 1 + r.nextInt(rows * 2);
        switch (r.nextInt(10)) {
            case 0:
            case 1: {
                StringBuilder names = new StringBuilder("id, n");
                StringBuilder values = new StringBuilder(id + ", 0");
                for (DdlColumn c : now) {
                    names.append(", ").append(c.name());
                    values.append(", ").append(c.value(r));
                }
                return "INSERT INTO " + TABLE + " (" + names + ") VALUES (" + values + ")";
            }
            case 2:
                return "UPDATE " + TABLE + " SET id = " + (1 + r.nextInt(rows * 2)) + " WHERE id = " + id;
            case 3:
                return "DELETE FROM " + TABLE + " WHERE id = " + id;
            default: {
                StringBuilder set = new StringBuilder("n = n + 1");
                for (DdlColumn c : now) {
                    if (r.nextInt(3) > 0) {
                        set.append(", ").append(c.name()).append(" = ").append(c.value(r));
                    }
                }
                return "UPDATE " + TABLE + " SET " + set + " WHERE id = " + id;
            }
        }
    }

    /** The table's rows now: key text to column (lower case) to value text. */
    private Map<String, Map<String, String>> read() throws SQLException {
        try (Connection c = target.connect()) {
            return DdlColumn.rows(c, TABLE);
        }
    }

    private void pumpUntil(SourceJob job, ShapedChangelog changelog, String what, SourceJob.Condition done)
            throws Exception {
        long deadline = System.nanoTime() + CONVERGENCE.toNanos();
        while (!done.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(context("timed out waiting for " + what, changelog));
            }
            pump(job, changelog, 20);
        }
    }

    private void pump(SourceJob job, ShapedChangelog changelog, long millis) throws Exception {
        try {
            job.drain(changelog::apply, millis);
        } catch (AssertionError failed) {
            throw new AssertionError(context(failed.getMessage(), changelog), failed.getCause());
        }
    }
}
