package io.rustcdc.flink.benchmark;

import java.util.List;

/**
 * What the benchmark needs from one database: its tables, the arguments that point each side's run
 * at them, the state a streaming run starts from, and the raw limits. Tables: {@code bench} (to
 * snapshot), {@code churn} (the change backlog) and {@code lat} (latency), all of one shape.
 */
interface BenchmarkTarget extends AutoCloseable {
    /** The server, for the report: {@code PostgreSQL 17}. */
    String server();

    /** The peer and the limits, for the report. */
    String peerAndLimits();

    /** The peer's main class and classpath. */
    String peerMain();

    String peerClasspath();

    /** {@code --host ... --password ...} and whatever else both sides need to connect. */
    List<String> connection();

    /** Creates the tables, {@code bench} with {@code rows} rows and primary key {@code key}. */
    void create(long rows, BenchKey key) throws Exception;

    /** The arguments of a snapshot run of {@code bench}. */
    List<String> snapshot(String run);

    /**
     * The arguments of a run that streams {@code table} from now on, taking what that needs (a
     * PostgreSQL slot; the MySQL binlog position now), named after {@code run}.
     */
    List<String> streamFromNow(String table, String run) throws Exception;

    /** Gives back what {@link #streamFromNow} or {@link #snapshot} took for {@code run}. */
    void release(String run);

    /** Commits exactly {@code changes} row changes to {@code churn}. */
    void commitBacklog(long changes) throws Exception;

    /** Rows per second of the raw snapshot read of {@code bench}, nothing decoded. */
    double snapshotLimit() throws Exception;

    /** The raw stream's read of the backlog, from where {@code run} was taken. */
    StreamLimit streamLimit(String run, long changes) throws Exception;

    /**
     * A raw read of {@code events} changes: their count per second from the read's start to the last, and the
     * seconds from its start to the first (for PostgreSQL, the slot's decoding of the backlog's first transaction).
     */
    record StreamLimit(long events, double seconds, double firstSeconds) {
        double perSecond() {
            return events / seconds;
        }

        /** The changes after the first, per second from the first to the last. */
        double paceAfterFirst() {
            return (events - 1) / (seconds - firstSeconds);
        }
    }

    @Override
    default void close() {}
}
