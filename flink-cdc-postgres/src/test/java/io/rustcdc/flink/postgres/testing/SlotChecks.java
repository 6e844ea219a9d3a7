package io.rustcdc.flink.postgres.testing;

import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.time.Duration;

/** Waits for the slot check of a PostgreSQL change stream, as seen in {@code pg_stat_activity}. */
public final class SlotChecks {
    /** How long a check's failure, once its last query ended, may take to reach the polling thread: far more than it does. */
    private static final Duration HAND_OVER = Duration.ofMillis(500);
    private static final Duration WITHIN = Duration.ofSeconds(30);

    private SlotChecks() {}

    /**
     * Polls {@code stream}, which must not fail, until a slot check that began after this call has passed, then
     * {@link #HAND_OVER} longer, for a failure that check found to reach the polling thread. A check ends with the
     * query of the captured tables' types ({@code WITH RECURSIVE types(oid) ...}, PgValueTypeCheck), run on the
     * check's connection of its own: a check passed once that connection is idle after that query, started after
     * this call (so after every statement the caller made before). For one stream open on {@code db} at a time.
     */
    public static void pollUntilACheckPassed(PostgresDatabase db, ChangeStream<?> stream) throws InterruptedException {
        String since = db.queryValue("SELECT clock_timestamp()::text");
        String passed = "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE datname = current_database() "
                + "AND usename = '" + db.replicationUser() + "' AND state = 'idle' "
                + "AND query LIKE 'WITH RECURSIVE types(oid)%' AND query_start > '" + since + "'::timestamptz";
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while ("0".equals(db.queryValue(passed))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("No slot check passed within " + WITHIN);
            }
            StreamTestSupport.pollWithoutFailure(stream, Duration.ofMillis(100));
        }
        StreamTestSupport.pollWithoutFailure(stream, HAND_OVER);
    }
}
