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
     * An exact snapshot on Oracle MySQL: the connector's chunk reads need MariaDB's {@code
     * binlog_snapshot_file}/{@code binlog_snapshot_position}, which Oracle MySQL does not report, so it
     * refuses every snapshot there (docs/mysql.md). False until the Oracle MySQL snapshot exists.
     */
    public static boolean oracleSnapshotSupported() {
        return false;
    }

    /**
     * GTIDs in Oracle MySQL positions (resume by GTID set, e.g. on a replica after a failover): Oracle
     * MySQL positions are binlog file and offset only (docs/mysql.md). False until they carry GTID sets.
     */
    public static boolean oracleGtidPositionsSupported() {
        return false;
    }

    /**
     * The check that a replica writes what it replicates to its own binlog ({@code
     * log_replica_updates}): MariaDB by {@code Slaves_running}, Oracle MySQL by its replication channels.
     */
    public static boolean oracleReplicaLoggingCheckSupported() {
        return true;
    }

    /**
     * A known defect, not a missing feature: the stream decodes {@code gb18030} text with the JVM's
     * GB18030 charset, which maps the code points GB18030-2022 changed (e.g. {@code A6D9}, {@code FE59},
     * {@code 82359037}, {@code 84318236}) by the 2022 standard, where Oracle MySQL maps them by
     * GB18030-2005 (private-use characters and back): the same bytes become other characters than the
     * server's own. False until the connector decodes gb18030 as Oracle MySQL does.
     */
    public static boolean oracleGb18030Exact() {
        return false;
    }

    /** Skips the calling test while {@link #oracleGb18030Exact()} is false (a known defect, see there). */
    public static void assumeGb18030Exact() {
        Assumptions.assumeTrue(oracleGb18030Exact(), "KNOWN DEFECT: gb18030 text decodes to other characters than "
                + "Oracle MySQL's for the code points GB18030-2022 remapped (MySqlFeatures.oracleGb18030Exact)");
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

    /** Skips the calling test on Oracle MySQL while {@link #oracleGtidPositionsSupported()} is false. */
    public static void assumeGtidPositions(MySqlServer server) {
        Assumptions.assumeTrue(server.isMariaDb() || oracleGtidPositionsSupported(),
                "needs GTIDs in positions, which the connector's Oracle MySQL positions do not carry yet "
                        + "(MySqlFeatures.oracleGtidPositionsSupported)");
    }

    /** Skips the calling test on Oracle MySQL while {@link #oracleReplicaLoggingCheckSupported()} is false. */
    public static void assumeReplicaLoggingCheck(MySqlServer server) {
        Assumptions.assumeTrue(server.isMariaDb() || oracleReplicaLoggingCheckSupported(),
                "needs the log_replica_updates check, which the connector does not make on Oracle MySQL yet "
                        + "(MySqlFeatures.oracleReplicaLoggingCheckSupported)");
    }
}
