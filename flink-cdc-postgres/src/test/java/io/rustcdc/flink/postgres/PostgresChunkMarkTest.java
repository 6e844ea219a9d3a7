package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Which transactions a chunk's MVCC snapshot reflects, from the stream's 32-bit xids. The stream
 * reads a transaction's xid from its BEGIN, and its commit LSN; a chunk mark holds the snapshot's
 * 64-bit xmin, xmax and in-progress xids and the WAL position read right after the snapshot.
 */
class PostgresChunkMarkTest {
    private static final long EPOCH = 7L << 32;
    private static final Lsn HIGH = Lsn.valueOf("0/23C65238");
    private static final Lsn BEFORE_HIGH = Lsn.valueOf("0/23C65108");

    @Test
    void anXidAtXmaxStartedAfterTheSnapshotSoItIsNotReflected() {
        PostgresChunkMark mark = PostgresChunkMark.of(EPOCH + 1227465, EPOCH + 1227465, new long[0], HIGH);
        assertThat(mark.reflects(1227465, BEFORE_HIGH)).isFalse();
    }

    @Test
    void anXidAboveXmaxCommittingBeforeTheHighLsnIsNotReflected() {
        // the case seen under writers: mark 1227465:1227465: @ 0/23C65238, a delete in 1227466 committing at 0/23C65108
        PostgresChunkMark mark = PostgresChunkMark.parse("1227465:1227465:", HIGH);
        assertThat(mark.reflects(1227466, BEFORE_HIGH)).isFalse();
        assertThat(mark.reflects(1227465 + 1_000_000, BEFORE_HIGH)).isFalse();
        PostgresChunkMark epoched = PostgresChunkMark.of(EPOCH + 1227465, EPOCH + 1227465, new long[0], HIGH);
        assertThat(epoched.reflects(1227466, BEFORE_HIGH)).isFalse();
    }

    @Test
    void committedBeforeTheSnapshotIsReflectedInProgressIsNot() {
        PostgresChunkMark mark = PostgresChunkMark.of(EPOCH + 100, EPOCH + 110,
                new long[] {EPOCH + 100, EPOCH + 103, EPOCH + 105}, HIGH);
        assertThat(mark.reflects(99, BEFORE_HIGH)).as("below xmin").isTrue();
        assertThat(mark.reflects(100, BEFORE_HIGH)).as("xmin, the oldest in progress").isFalse();
        assertThat(mark.reflects(101, BEFORE_HIGH)).as("between xmin and xmax, not in progress").isTrue();
        assertThat(mark.reflects(103, BEFORE_HIGH)).as("in progress").isFalse();
        assertThat(mark.reflects(105, BEFORE_HIGH)).as("in progress").isFalse();
        assertThat(mark.reflects(109, BEFORE_HIGH)).isTrue();
        assertThat(mark.reflects(110, BEFORE_HIGH)).as("xmax").isFalse();
        assertThat(mark.reflects(111, BEFORE_HIGH)).as("above xmax").isFalse();
    }

    @Test
    void aCommitAtOrAfterTheHighLsnIsNeverReflected() {
        PostgresChunkMark mark = PostgresChunkMark.of(EPOCH + 100, EPOCH + 110, new long[0], HIGH);
        assertThat(mark.reflects(99, HIGH)).isFalse();
        assertThat(mark.reflects(99, Lsn.valueOf("0/23C65239"))).isFalse();
        assertThat(mark.reflects(PostgresPosition.NO_TRANSACTION, BEFORE_HIGH)).isFalse();
    }

    @Test
    void xidsOfThePreviousEpochAreOlderThanASnapshotJustAfterTheWrap() {
        // snapshot taken just after the 32-bit counter wrapped: xmin and xmax in the new epoch
        PostgresChunkMark mark = PostgresChunkMark.of(EPOCH + 5, EPOCH + 10, new long[0], HIGH);
        assertThat(mark.reflects(0xFFFFFFF0L, BEFORE_HIGH)).as("old epoch, committed").isTrue();
        assertThat(mark.reflects(7, BEFORE_HIGH)).isTrue();
        assertThat(mark.reflects(10, BEFORE_HIGH)).isFalse();
        assertThat(mark.reflects(12, BEFORE_HIGH)).isFalse();
        // in progress across the wrap
        PostgresChunkMark across = PostgresChunkMark.of(EPOCH - 20, EPOCH + 10, new long[] {EPOCH - 3}, HIGH);
        assertThat(across.reflects(0xFFFFFFFDL, BEFORE_HIGH)).as("in progress, old epoch").isFalse();
        assertThat(across.reflects(0xFFFFFFFEL, BEFORE_HIGH)).as("committed, old epoch").isTrue();
        assertThat(across.reflects(0xFFFFFFE0L, BEFORE_HIGH)).as("below xmin, old epoch").isTrue();
    }

    @Test
    void xidsOfTheNextEpochAreNewerThanASnapshotJustBeforeTheWrap() {
        // snapshot taken just before the wrap: xmax near 2^32 - 1; the stream then sees xids 3, 4, ... of the next epoch
        PostgresChunkMark mark = PostgresChunkMark.of(EPOCH - 30, EPOCH - 2, new long[0], HIGH);
        assertThat(mark.reflects(0xFFFFFFF0L, BEFORE_HIGH)).isTrue();
        assertThat(mark.reflects(0xFFFFFFFEL, BEFORE_HIGH)).as("xmax").isFalse();
        assertThat(mark.reflects(0xFFFFFFFFL, BEFORE_HIGH)).isFalse();
        assertThat(mark.reflects(3, BEFORE_HIGH)).as("next epoch, after the snapshot").isFalse();
        assertThat(mark.reflects(5000, BEFORE_HIGH)).as("next epoch, after the snapshot").isFalse();
    }

    @Test
    void widensToTheNearestFullXid() {
        PostgresChunkMark mark = PostgresChunkMark.of(EPOCH - 30, EPOCH - 2, new long[0], HIGH);
        assertThat(mark.widen(3)).isEqualTo(EPOCH + 3);
        assertThat(mark.widen(0xFFFFFFF0L)).isEqualTo(EPOCH - 16);
        PostgresChunkMark after = PostgresChunkMark.of(EPOCH + 5, EPOCH + 10, new long[0], HIGH);
        assertThat(after.widen(0xFFFFFFF0L)).isEqualTo(EPOCH - 16);
        assertThat(after.widen(11)).isEqualTo(EPOCH + 11);
    }

    @Test
    void theRelationIdNamesTheTableTheChunkReadForTheFrameworksComparison() {
        PostgresChunkMark mark = PostgresChunkMark.parse("100:110:", HIGH);
        PostgresChunkMark read = mark.ofRelation(16384);
        assertThat(read.relationId()).isEqualTo(16384);
        assertThat(read).isNotEqualTo(mark).isNotEqualTo(mark.ofRelation(16390)).isEqualTo(mark.ofRelation(16384));
        assertThat(read.reflects(101, BEFORE_HIGH)).isEqualTo(mark.reflects(101, BEFORE_HIGH));
        assertThat(read.toString()).isEqualTo("100:110: @0/23C65238 relation 16384");
        PostgresConnector connector = PostgresConnector.create(PostgresSourceConfig.builder().hostname("h").database("d")
                .username("u").password(io.rustcdc.flink.source.Secret.of("p")).build());
        assertThat(connector.tableIdentity(read)).hasToString("relation id 16384")
                .isEqualTo(connector.tableIdentity(PostgresChunkMark.of(1, 2, new long[0], HIGH).ofRelation(16384)));
        assertThat(connector.tableIdentity(mark)).as("a mark of state version 1").isNull();
        // the key's order: another differs, and one a mark of state version 2 did not keep matches any
        Object ordered = connector.tableIdentity(mark.ofRelation(16384, "k text (collation \"C\" (libc))"));
        assertThat(ordered).hasToString("relation id 16384 with key k text (collation \"C\" (libc))")
                .isNotEqualTo(connector.tableIdentity(mark.ofRelation(16384, "k text (collation \"en_US\" (libc))")))
                .isNotEqualTo(connector.tableIdentity(mark.ofRelation(16390, "k text (collation \"C\" (libc))")))
                .isEqualTo(connector.tableIdentity(read));
        assertThat(connector.tableIdentity(read)).isEqualTo(ordered);
    }
}
