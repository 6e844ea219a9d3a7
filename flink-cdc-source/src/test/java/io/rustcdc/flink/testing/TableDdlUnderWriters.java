package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A captured table replaced under its name while writers change its rows: renamed away and created
 * again, dropped and created again (with the same or other columns), or, on MariaDB, {@code CREATE OR
 * REPLACE TABLE}; the new table is written to at once. During the stream, at random moments, judged by
 * {@link TableGenerations}: the old table's changelog exact up to the events that end it, those events
 * of the classes the connector documents, and the new table's changelog exact after them. During the
 * snapshot (between chunks, the reader held at a drawn read by {@link ReadGate}): the documented
 * failure, {@code STATE} naming the table (docs/schema-changes.md, "During the snapshot").
 *
 * <p>The table is {@code ren_t (id INT PRIMARY KEY, n INT NOT NULL, ...)}. The writers ({@link
 * ConcurrentWriters}) are paused for each replacement, so the old table's rows read just before it (on
 * PostgreSQL in its transaction) are its rows at the DDL. Each run draws everything from a seed printed
 * before it starts and named in any failure; {@code -Drustcdc.tableddl.seed=N} replays one, {@code
 * -Drustcdc.tableddl.runs=N} makes N runs (a soak). Each run is two jobs of a few seconds at parallelism
 * 1 on the test's MiniCluster, {@link ReadGate} as the deserializer: the stream case, then the snapshot case.
 */
public final class TableDdlUnderWriters {
    public static final String SEED_PROPERTY = "rustcdc.tableddl.seed";
    public static final String RUNS_PROPERTY = "rustcdc.tableddl.runs";
    public static final String TABLE = "ren_t";
    private static final Duration CONVERGENCE = Duration.ofSeconds(60);
    /** How long the writers may run at most (they are stopped when a case ends). */
    private static final long WRITERS_AT_MOST = Duration.ofMinutes(10).toMillis();
    /** Replacements during the stream (the snapshot case has one). */
    private static final int REPLACEMENTS = 2;

    /** How the table is replaced. */
    public enum Kind {
        /** {@code RENAME TABLE t TO t_old} (PostgreSQL: {@code ALTER TABLE ... RENAME TO}), then {@code CREATE TABLE t}. */
        RENAME_AND_CREATE,
        /** {@code DROP TABLE t}, then {@code CREATE TABLE t}. */
        DROP_AND_CREATE,
        /** MariaDB's {@code CREATE OR REPLACE TABLE t}. */
        CREATE_OR_REPLACE
    }

    /**
     * How the server replaces a table.
     *
     * @param transactionalDdl whether DDL is transactional: the replacement, its row read and the new
     *     table's first rows in one transaction
     * @param kinds the kinds of replacement the server has
     * @param rename the statement that renames its first argument to its second
     * @param classes the classes of the schema change events that end the old table and start the new
     *     one, one per event, in order, as the connector documents them for a kind during the stream
     */
    public record Replacements(boolean transactionalDdl, List<Kind> kinds, BinaryOperator<String> rename,
            Function<Kind, List<String>> classes) {}


    /** A table under the name: its number (its keys start at number * KEYS_PER_GENERATION) and columns past id, n. */
    private record Generation(int number, List<DdlColumn> columns) {
        long keys() {
            return number * TableGenerations.KEYS_PER_GENERATION;
        }

        List<String> names() {
            List<String> names = new ArrayList<>(List.of("id", "n"));
            columns.forEach(c -> names.add(c.name()));
            return names;
        }
    }

    private final DdlServer target;
    private final Replacements replacements;
    private final long seed;
    private final Random random;
    private final List<String> applied = new CopyOnWriteArrayList<>(); // added to by a DDL thread
    private volatile Generation generation;
    private int rows;

    private TableDdlUnderWriters(DdlServer target, Replacements replacements, long seed) {
        this.target = target;
        this.replacements = replacements;
        this.seed = seed;
        this.random = new Random(seed);
    }

    /** One run per seed of {@link #SEED_PROPERTY} ({@code N,M}), else {@link #RUNS_PROPERTY} runs (default 1). */
    public static void run(DdlServer target, Replacements replacements) throws Exception {
        long[] seeds = Seeds.of(SEED_PROPERTY, RUNS_PROPERTY, 1);
        System.out.println("Table DDL under writers on " + target.name() + ": seeds " + Arrays.toString(seeds)
                + " (replay one with -D" + SEED_PROPERTY + "=<seed>)");
        for (long seed : seeds) {
            TableDdlUnderWriters test = new TableDdlUnderWriters(target, replacements, seed);
            String run = "ren" + Long.toHexString(seed);
            try {
                test.duringTheStream(run + "s");
            } finally {
                target.finish(run + "s");
            }
            try {
                test.duringTheSnapshot(run + "c");
            } finally {
                target.finish(run + "c");
            }
        }
    }

    private ConcurrentWriters writers() {
        return new ConcurrentWriters(target::connect, 2, WRITERS_AT_MOST, 8, seed, this::statement);
    }

    private void duringTheStream(String run) throws Exception {
        rows = 50 + random.nextInt(100);
        System.out.println("Table DDL under writers on " + target.name() + ", seed " + seed + ", during the stream: "
                + rows + " rows, " + REPLACEMENTS + " replacements");
        createTable(rows);
        applied.clear();
        ReadGate.reset();
        TableGenerations changelog = new TableGenerations(TABLE);
        long started = System.nanoTime();
        try (SourceJob job = new SourceJob(target.source(TABLE, 1024, run), 1);
                ConcurrentWriters writers = writers()) {
            pumpUntil(job, changelog::apply, "the stream's first event", () -> ReadGate.STREAMED.get() > 0, changelog);
            for (int i = 0; i < REPLACEMENTS; i++) {
                long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200 + random.nextInt(800));
                pumpUntil(job, changelog::apply, "the moment of the next replacement", () -> System.nanoTime() >= at,
                        changelog);
                Kind kind = drawKind();
                Generation next = drawGeneration();
                writers.paused(() -> replace(kind, next, changelog));
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300 + random.nextInt(500));
            pumpUntil(job, changelog::apply, "the writers' last moments", () -> System.nanoTime() >= end, changelog);
            writers.endNow();
            if (writers.transactions() < 20) {
                throw new AssertionError(context("the writers committed only " + writers.transactions()
                        + " transactions", changelog));
            }
            Map<String, Map<String, String>> expected = read(null);
            long deadline = System.nanoTime() + CONVERGENCE.toNanos();
            while (!changelog.reached(expected)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(context("the changelog did not reach the last table's rows within "
                            + CONVERGENCE + ": " + changelog.differences(expected), changelog));
                }
                pump(job, changelog::apply, 200, changelog);
            }
            if (changelog.violationCount() > 0) {
                throw new AssertionError(context("the changelog reached the last table's rows, but", changelog));
            }
            System.out.printf("  passed in %d s: %d transactions, row events %s, schema changes %s%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), writers.transactions(),
                    changelog.rowOps(), changelog.schemaChanges());
        } finally {
            ReadGate.reset();
        }
    }

    private void duringTheSnapshot(String run) throws Exception {
        rows = 100 + random.nextInt(100);
        int chunkSize = 8 + random.nextInt(17);
        long hold = 1 + random.nextInt(rows / 2); // a later chunk reads the new table
        createTable(rows);
        applied.clear();
        Kind kind = drawKind();
        Generation next = drawGeneration();
        System.out.println("Table DDL under writers on " + target.name() + ", seed " + seed + ", during the snapshot: "
                + rows + " rows, chunks of " + chunkSize + ", " + kind + " at read " + hold);
        ReadGate.reset();
        ReadGate.holdAt = hold;
        List<String> received = new ArrayList<>();
        try (SourceJob job = new SourceJob(target.source(TABLE, chunkSize, run), 1);
                ConcurrentWriters writers = writers()) {
            pumpUntil(job, received::add, "the snapshot's read " + hold, () -> ReadGate.READS.get() >= hold, null);
            // a thread of its own: the common pool may have a single thread (2 cores), which something else may hold
            FutureTask<Void> ddl = new FutureTask<>(() -> {
                writers.paused(() -> replace(kind, next, null));
                return null;
            });
            new Thread(ddl, "table-ddl").start();
            // the reader goes on once the DDL ran between chunks, or after a while if it waits for the chunk held: a
            // reader let go before the DDL landed could finish the snapshot first, and nothing would fail
            long release = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!ddl.isDone() && System.nanoTime() < release) {
                Thread.sleep(5);
            }
            ReadGate.holdAt = Long.MAX_VALUE;
            CdcException failure = awaitFailure(job, received, ddl);
            ddl.get(30, TimeUnit.SECONDS);
            String message = failure.getMessage();
            if (failure.kind() != CdcException.Kind.STATE || !message.contains("Table ")
                    || !message.contains(TABLE + " was ") || !message.contains("while its snapshot was read")
                    || !message.contains("without state")) {
                throw new AssertionError(context("the job failed, but not as documented (STATE, naming the table, "
                        + "the snapshot and the remedy): " + failure, null), failure);
            }
            writers.endNow();
            System.out.println("  failed as documented (" + received.size() + " records collected): " + failure);
        } finally {
            ReadGate.reset();
        }
    }

    private CdcException awaitFailure(SourceJob job, List<String> received, FutureTask<Void> ddl) throws Exception {
        long deadline = System.nanoTime() + CONVERGENCE.toNanos();
        while (System.nanoTime() < deadline) {
            if (ddl.isDone()) {
                ddl.get(); // throws when the DDL failed
            }
            try {
                job.drain(received::add, 200);
            } catch (AssertionError failed) {
                for (Throwable t = failed.getCause(); t != null; t = t.getCause()) {
                    if (t instanceof CdcException) {
                        return (CdcException) t;
                    }
                }
                throw new AssertionError(context("the job failed, but not with a CdcException", null), failed);
            }
        }
        throw new AssertionError(context("the job did not fail within " + CONVERGENCE + " though the table was "
                + "replaced between chunks of its snapshot (" + received.size() + " records)", null));
    }

    private Kind drawKind() {
        List<Kind> kinds = replacements.kinds();
        return kinds.get(random.nextInt(kinds.size()));
    }

    /** The next table: the same columns as the one before, or others (new names, other types). */
    private Generation drawGeneration() {
        Generation now = generation;
        int number = now.number + 1;
        List<DdlColumn> columns = random.nextBoolean() ? now.columns
                : List.of(new DdlColumn("x" + number, "BIGINT"), new DdlColumn("y" + number, "VARCHAR(40)"));
        return new Generation(number, columns);
    }

    private void createTable(int count) throws SQLException {
        Generation first = new Generation(0, List.of(new DdlColumn("c0", "INT"), new DdlColumn("c1", "VARCHAR(20)")));
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            for (int g = 0; g < REPLACEMENTS; g++) {
                s.execute("DROP TABLE IF EXISTS " + TABLE + "_old" + g); // renamed away by an earlier run
            }
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute(create(first, false));
            target.prepare(s, TABLE);
            s.execute(insert(first, 1, count));
        }
        generation = first;
    }

    private String create(Generation g, boolean orReplace) {
        StringBuilder sql = new StringBuilder(orReplace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ").append(TABLE)
                .append(" (id BIGINT PRIMARY KEY, n INT NOT NULL");
        g.columns.forEach(c -> sql.append(", ").append(c.name()).append(' ').append(c.type()));
        return sql.append(')').toString();
    }

    /** Rows {@code from} to {@code to} (local numbers) of {@code g}, every column given. */
    private String insert(Generation g, int from, int to) {
        StringBuilder sql = new StringBuilder("INSERT INTO " + TABLE + " VALUES ");
        Random r = new Random(seed + g.number);
        for (int i = from; i <= to; i++) {
            sql.append(i == from ? "" : ", ").append('(').append(g.keys() + i).append(", 0");
            g.columns.forEach(c -> sql.append(", ").append(c.value(r)));
            sql.append(')');
        }
        return sql.toString();
    }

    /**
     * Replaces the table by {@code next} (the writers paused), writes its first rows, and announces it to
     * {@code changelog} (when given) with the old table's rows read just before (in the same transaction
     * where DDL is transactional).
     */
    private void replace(Kind kind, Generation next, TableGenerations changelog) throws SQLException {
        Generation old = generation;
        List<String> statements = new ArrayList<>();
        if (kind == Kind.RENAME_AND_CREATE) {
            statements.add(replacements.rename().apply(TABLE, TABLE + "_old" + old.number));
        } else if (kind == Kind.DROP_AND_CREATE) {
            statements.add("DROP TABLE " + TABLE);
        }
        statements.add(create(next, kind == Kind.CREATE_OR_REPLACE));
        int first = 1 + random.nextInt(10);
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(!replacements.transactionalDdl());
            Map<String, Map<String, String>> oldRows = read(c);
            for (String statement : statements) {
                s.execute(statement);
            }
            target.prepare(s, TABLE);
            s.execute(insert(next, 1, first));
            if (!c.getAutoCommit()) {
                c.commit();
            }
            if (changelog != null) {
                changelog.expectReplacement(oldRows, replacements.classes().apply(kind), next.names());
            }
        }
        applied.add(String.join("; ", statements) + " (" + first + " rows)");
        generation = next;
        System.out.println("  " + kind + ": " + String.join("; ", statements) + ", then " + first
                + " rows (stream event " + ReadGate.STREAMED.get() + ", read " + ReadGate.READS.get() + ")");
    }

    /** A writer's statement on the table now: inserts, updates of values and of keys, deletes. */
    private String statement(Random r) {
        Generation g = generation;
        long id = g.keys() + 1 + r.nextInt(rows * 2);
        switch (r.nextInt(10)) {
            case 0:
            case 1: {
                StringBuilder names = new StringBuilder("id, n");
                StringBuilder values = new StringBuilder(id + ", 0");
                for (DdlColumn c : g.columns) {
                    names.append(", ").append(c.name());
                    values.append(", ").append(c.value(r));
                }
                return "INSERT INTO " + TABLE + " (" + names + ") VALUES (" + values + ")";
            }
            case 2:
                return "UPDATE " + TABLE + " SET id = " + (g.keys() + 1 + r.nextInt(rows * 2)) + " WHERE id = " + id;
            case 3:
                return "DELETE FROM " + TABLE + " WHERE id = " + id;
            default: {
                StringBuilder set = new StringBuilder("n = n + 1");
                for (DdlColumn c : g.columns) {
                    if (r.nextInt(3) > 0) {
                        set.append(", ").append(c.name()).append(" = ").append(c.value(r));
                    }
                }
                return "UPDATE " + TABLE + " SET " + set + " WHERE id = " + id;
            }
        }
    }

    /** The table's rows now, through {@code c} (a new connection when null): key text to column to value text. */
    private Map<String, Map<String, String>> read(Connection c) throws SQLException {
        if (c == null) {
            try (Connection own = target.connect()) {
                return read(own);
            }
        }
        return DdlColumn.rows(c, TABLE);
    }

    private String context(String what, TableGenerations changelog) {
        String judged = changelog == null ? "" : "\n  " + changelog.violationCount() + " violations, first ones:\n    "
                + String.join("\n    ", changelog.violations()) + "\n  row events " + changelog.rowOps()
                + ", schema changes " + changelog.schemaChanges();
        return "Table DDL under writers on " + target.name() + " failed: " + what + judged + "\n  DDL: "
                + String.join("; ", applied) + "\n  replay it with -D" + SEED_PROPERTY + "=" + seed;
    }

    private void pumpUntil(SourceJob job, Consumer<String> apply, String what,
            SourceJob.Condition done, TableGenerations changelog) throws Exception {
        long deadline = System.nanoTime() + CONVERGENCE.toNanos();
        while (!done.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(context("timed out waiting for " + what, changelog));
            }
            pump(job, apply, 20, changelog);
        }
    }

    private void pump(SourceJob job, Consumer<String> apply, long millis, TableGenerations changelog)
            throws Exception {
        try {
            job.drain(apply, millis);
        } catch (AssertionError failed) {
            throw new AssertionError(context(failed.getMessage(), changelog), failed.getCause());
        }
    }
}
