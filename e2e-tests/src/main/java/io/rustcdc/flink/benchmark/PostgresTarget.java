package io.rustcdc.flink.benchmark;

import io.rustcdc.flink.postgres.testing.PostgresServer;
import java.util.List;

/** PostgreSQL: snapshot and stream runs each read through a slot of their own. */
final class PostgresTarget implements BenchmarkTarget {
    private final PostgresServer server = PostgresServer.shared();
    private final BenchmarkDatabase db = new BenchmarkDatabase(server.createDatabase("bench"));

    @Override
    public String server() {
        return "PostgreSQL " + server.majorVersion();
    }

    @Override
    public String peerAndLimits() {
        return "Peer: Apache Flink CDC 3.5.0 postgres-cdc (incremental snapshot, pgoutput) on Flink 1.20.3. "
                + "Limit: PgJDBC reading COPY TO STDOUT / the raw pgoutput stream, nothing decoded.";
    }

    @Override
    public String peerMain() {
        return "io.rustcdc.benchmark.peer.PeerBenchmark";
    }

    @Override
    public String peerClasspath() {
        return classpath("benchmark.peer.classpath");
    }

    static String classpath(String property) {
        String classpath = System.getProperty(property);
        if (classpath == null) {
            throw new IllegalStateException("Set -D" + property + " (the README's benchmark command does)");
        }
        return classpath;
    }

    @Override
    public List<String> connection() {
        return List.of("--connector", "postgres", "--host", db.db().host(), "--port", String.valueOf(db.db().port()),
                "--database", db.db().name(), "--user", db.db().replicationUser(), "--password",
                db.db().replicationPassword());
    }

    @Override
    public void create(long rows, BenchKey key) {
        db.create(rows, key);
    }

    @Override
    public List<String> snapshot(String run) {
        // the slot is never created: a snapshot-only run needs none
        return List.of("--table", "public.bench", "--publication", "bench_pub", "--slot", slot(run));
    }

    @Override
    public List<String> streamFromNow(String table, String run) {
        db.createSlot(slot(run));
        return List.of("--table", "public." + table, "--publication", table + "_pub", "--slot", slot(run));
    }

    @Override
    public void release(String run) {
        db.dropSlot(slot(run));
    }

    @Override
    public void commitBacklog(long changes) throws Exception {
        db.commitBacklog(changes);
    }

    @Override
    public double snapshotLimit() throws Exception {
        return Limits.copy(db.db(), "bench");
    }

    @Override
    public StreamLimit streamLimit(String run, long changes) throws Exception {
        try {
            return Limits.replication(db.db(), slot(run), "churn_pub", changes);
        } finally {
            release(run);
        }
    }

    private static String slot(String run) {
        return run.replace('-', '_');
    }
}
