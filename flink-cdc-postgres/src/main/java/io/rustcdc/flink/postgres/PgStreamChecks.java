package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.filter.TableFilter;
import javax.annotation.Nullable;

/**
 * The checks a stream runs at every slot check that compare with what an earlier check saw: the publication's
 * memberships ({@link PgPublicationCheck}) and the types of the captured tables' values ({@link PgValueTypeCheck}).
 * A stream opened again by the same connector instance (after a connection failure, a terminated walsender or a
 * failover, by {@code connect.max-retries}) goes on from its last stream's, so that a change made while no stream
 * ran is found when it opens.
 */
record PgStreamChecks(PgPublicationCheck publication, PgValueTypeCheck types) {

    /** The checks of a stream of {@code filter}'s tables, going on from {@code earlier}'s (null: from nothing). */
    static PgStreamChecks from(PostgresSourceConfig config, TableFilter filter, @Nullable PgStreamChecks earlier) {
        if (earlier == null) {
            return new PgStreamChecks(new PgPublicationCheck(config, filter), new PgValueTypeCheck(config.slotName()));
        }
        return new PgStreamChecks(new PgPublicationCheck(config, filter, earlier.publication),
                new PgValueTypeCheck(config.slotName(), earlier.types));
    }
}
