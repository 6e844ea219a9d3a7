package io.rustcdc.flink.mysql.testing;

import org.junit.jupiter.api.Assumptions;

/**
 * What the connector does not do yet on Oracle MySQL, in one place: each test that needs such a
 * feature calls the matching {@code assume...} first, so on Oracle MySQL it is reported as skipped
 * with the reason, never silently left out, and it runs again as soon as the flag here turns true.
 * On MariaDB every feature is there and nothing is skipped.
 */
public final class MySqlFeatures {
    private MySqlFeatures() {}

    /**
     * An exact snapshot on Oracle MySQL: each chunk completed from the binlog between the GTIDs
     * executed before it and the binlog's end after it ({@code ChunkBackfill}, docs/mysql.md). True:
     * every snapshot test runs on Oracle MySQL too.
     */
    public static boolean oracleSnapshotSupported() {
        return true;
    }

    /**
     * The check that a replica writes what it replicates to its own binlog ({@code
     * log_replica_updates}): MariaDB by {@code Slaves_running}, Oracle MySQL by its replication channels.
     */
    public static boolean oracleReplicaLoggingCheckSupported() {
        return true;
    }

    /** Whether the connector snapshots {@code server}: MariaDB always, Oracle MySQL per {@link #oracleSnapshotSupported()}. */
    public static boolean snapshotAvailable(MySqlServer server) {
        return server.isMariaDb() || oracleSnapshotSupported();
    }

    /** Skips the calling test on Oracle MySQL while {@link #oracleSnapshotSupported()} is false. */
    public static void assumeSnapshot(MySqlServer server) {
        Assumptions.assumeTrue(snapshotAvailable(server),
                "needs a snapshot, which the connector does not take on Oracle MySQL yet "
                        + "(MySqlFeatures.oracleSnapshotSupported)");
    }

    /** Skips the calling test on Oracle MySQL while {@link #oracleReplicaLoggingCheckSupported()} is false. */
    public static void assumeReplicaLoggingCheck(MySqlServer server) {
        Assumptions.assumeTrue(server.isMariaDb() || oracleReplicaLoggingCheckSupported(),
                "needs the log_replica_updates check, which the connector does not make on Oracle MySQL yet "
                        + "(MySqlFeatures.oracleReplicaLoggingCheckSupported)");
    }
}
