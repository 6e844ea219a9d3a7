package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LsnAndPositionTest {

    @Test
    void lsnReadsAndWritesPostgresNotationAndComparesUnsigned() {
        assertThat(Lsn.valueOf("16/B374D848").asLong()).isEqualTo(0x16B374D848L);
        assertThat(Lsn.valueOf(0x16B374D848L).toString()).isEqualTo("16/B374D848");
        assertThat(Lsn.valueOf("0/0")).isEqualTo(Lsn.ZERO);
        assertThat(Lsn.valueOf("FFFFFFFF/FFFFFFFF")).isGreaterThan(Lsn.valueOf("7FFFFFFF/FFFFFFFF"));
        assertThat(Lsn.valueOf("0/10").next()).isEqualTo(Lsn.valueOf("0/11"));
        assertThatThrownBy(() -> Lsn.valueOf("16B374D848")).hasMessageContaining("Not an LSN");
        assertThatThrownBy(() -> Lsn.valueOf("1/")).hasMessageContaining("Not an LSN");
        assertThatThrownBy(() -> Lsn.valueOf("100000000/0")).hasMessageContaining("Not an LSN");
    }

    @Test
    void positionsOrderByLsnThenEventsTaken() {
        PostgresPosition inTx1 = PostgresPosition.inTransaction(Lsn.valueOf("0/100"), 1, 7);
        PostgresPosition inTx2 = PostgresPosition.inTransaction(Lsn.valueOf("0/100"), 2, 7);
        PostgresPosition afterTx = PostgresPosition.at(Lsn.valueOf("0/180"));
        PostgresPosition nextTx = PostgresPosition.inTransaction(Lsn.valueOf("0/180"), 1, 8);
        assertThat(inTx1).isLessThan(inTx2);
        assertThat(inTx2).isLessThan(afterTx);
        assertThat(afterTx).isLessThan(nextTx);
        assertThat(inTx2.toString()).isEqualTo("0/100#2");
        assertThat(afterTx.toString()).isEqualTo("0/180");
        assertThat(afterTx.xid()).isEqualTo(PostgresPosition.NO_TRANSACTION);
    }

    @Test
    void markReflectsByVisibilityAcrossAnXidEpoch() {
        long epoch = 3L << 32;
        // snapshot xmin 100, xmax 110, 105 in progress; written after the snapshot at 0/500
        PostgresChunkMark mark = PostgresChunkMark.of(epoch + 100, epoch + 110, new long[] {epoch + 105}, Lsn.valueOf("0/500"));
        Lsn before = Lsn.valueOf("0/400");
        assertThat(mark.reflects(99, before)).isTrue();
        assertThat(mark.reflects(104, before)).isTrue();
        assertThat(mark.reflects(105, before)).isFalse();
        assertThat(mark.reflects(110, before)).isFalse();
        assertThat(mark.reflects(104, Lsn.valueOf("0/500"))).as("commit at or after the high LSN").isFalse();
        assertThat(mark.reflects(PostgresPosition.NO_TRANSACTION, before)).isFalse();
        // an xid of the previous epoch (32-bit wrap): 0xFFFFFFF0 is older than xmin
        PostgresChunkMark wrapped = PostgresChunkMark.of(epoch + 5, epoch + 10, new long[0], Lsn.valueOf("0/500"));
        assertThat(wrapped.reflects(0xFFFFFFF0L, before)).isTrue();
        assertThat(PostgresChunkMark.parse("100:110:105,107", Lsn.ZERO).inProgress()).containsExactly(105, 107);
        assertThat(PostgresChunkMark.parse("100:100:", Lsn.ZERO).inProgress()).isEmpty();
    }
}
