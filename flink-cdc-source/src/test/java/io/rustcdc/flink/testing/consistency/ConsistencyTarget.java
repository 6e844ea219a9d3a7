package io.rustcdc.flink.testing.consistency;

import io.rustcdc.flink.source.CdcSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.annotation.Nullable;

/**
 * What a connector gives the {@link ConsistencySuite}: connections to a fresh test database, the
 * few statements its SQL dialect writes differently, and a JSON source over given tables. A run
 * creates its own tables, so one target serves many runs.
 */
public interface ConsistencyTarget {

    /** The server's name in failure messages, e.g. {@code PostgreSQL 17} or {@code MariaDB 11.4}. */
    String server();

    /** A new connection to the test database that may create, change and drop tables. */
    Connection connect() throws SQLException;

    /**
     * What follows the type of the text key ({@code k VARCHAR(40)}) in the run of {@code seed}: a
     * collation, which a target may pick by the seed among several (empty: the default). The composite
     * key's text part keeps the default.
     */
    default String textKeyCollation(long seed) {
        return "";
    }

    /**
     * Whether {@link #prepareTable} runs on the creating connection, so that the suite may create and prepare a
     * table in one transaction (DDL that is transactional, as PostgreSQL's); false: each statement commits.
     */
    default boolean preparesInCreatingTransaction() {
        return false;
    }

    /**
     * What follows the column list of the suite's {@code CREATE TABLE} of a table keyed by {@code
     * keyColumns}: a {@code PARTITION BY} clause, whose partitions {@link #prepareTable} then
     * creates (empty: a plain table).
     */
    default String tableClause(List<String> keyColumns) {
        return "";
    }

    /** Makes a table the suite just created capturable (PostgreSQL: full old rows, the source role's ownership). */
    default void prepareTable(Connection c, String table) throws SQLException {}

    /**
     * Whether the connector computes the chunk ends of a table keyed by one dense integer column ({@code
     * DenseKeyChunks}, which logs its decision): a run with dense keys then checks that it did so for the
     * bigint-keyed table.
     */
    default boolean computesDenseChunkEnds() {
        return false;
    }

    /**
     * The statement that refreshes the database's statistics of a table the suite just filled, as a table in use
     * has them (PostgreSQL: {@code ANALYZE}, without which it has no row estimate); null (the default) for none. An
     * integer key's chunk ends are computed only where the estimate says its rows fill most of its range.
     */
    @Nullable
    default String analyzeStatement(String table) {
        return null;
    }

    /**
     * {@code insert} (an {@code INSERT ... VALUES} statement) turned into an upsert on conflict with
     * {@code keyColumns}, applying {@code assignments} (an SQL SET list, columns of the existing row
     * qualified by the table's name) to the row already there.
     */
    String upsert(String insert, String table, String keyColumns, String assignments);

    /**
     * A source over {@code tables} (names without a schema, in this target's test database, one of
     * them created only while the job runs) with {@code chunkSize}, rendering native JSON, that looks
     * for new tables every second. {@code run} is unique per run, for names a source
     * must not share with another run (a replication slot).
     *
     * @param atLeastOnceSinks the source's option for sinks that keep what a failed attempt wrote
     */
    CdcSource<String, ?, ?> source(List<String> tables, int chunkSize, boolean atLeastOnceSinks, String run);

    /**
     * Whether runs may kill the TaskManager and fail the JobManager over (else their faults are
     * savepoints and restores). False only for a known defect (say which, and where it is tracked).
     */
    default boolean taskManagerLoss() {
        return true;
    }

    /** Drops what the run's source left on the server (a replication slot); called after its job ended. */
    default void finish(String run) throws Exception {}

    /**
     * Waits, before the suite creates a table while run {@code run}'s job runs, until the database
     * can take DDL without a server bug the source cannot help (nothing: at once).
     */
    default void beforeTableCreated(String run) throws Exception {}
}
