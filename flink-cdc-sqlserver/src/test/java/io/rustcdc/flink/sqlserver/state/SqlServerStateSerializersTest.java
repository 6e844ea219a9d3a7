package io.rustcdc.flink.sqlserver.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.sqlserver.ChangeOperation;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerChunkMark;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SqlServerStateSerializersTest {
    private static final Lsn COMMIT = Lsn.parse("0000002D:000001A8:0003");
    private static final Lsn SEQVAL = Lsn.parse("0000002D:000001A0:0002");
    /** Version-2 bytes of {@code 0000002D:000001A8:0003/7/0000002D:000001A0:0002#4}; never change them. */
    private static final String CHANGE_V2 = "0000002d000001a80003" + "01" + "00000007" + "0000002d000001a00002" + "04";
    /** Version-1 and version-2 bytes of {@code 0000002D:000001A8:0003}; never change them. */
    private static final String COMMIT_V1 = "0000002d000001a80003" + "00";
    /** Version-1 bytes of a position after a change, which version 1 held without its command id. */
    private static final String CHANGE_V1 = "0000002d000001a80003" + "01" + "0000002d000001a00002" + "04";
    /** Version-1 bytes of a chunk mark, the LSN alone (written by LsnSerializer); never change them. */
    private static final String MARK_V1 = "0000002d000001a80003";
    /** Version-2 bytes of a chunk mark of object_id 581577110; never change them. */
    private static final String MARK_V2 = MARK_V1 + "22aa2996";

    @Test
    void positionsReadTheirFrozenBytes() throws IOException {
        SqlServerPositionSerializer s = SqlServerPositionSerializer.INSTANCE;
        SqlServerPosition change = SqlServerPosition.afterChange(COMMIT, 7, SEQVAL, ChangeOperation.UPDATE_AFTER);
        SqlServerPosition commit = SqlServerPosition.afterCommit(COMMIT);
        assertThat(s.getVersion()).isEqualTo(2);
        assertThat(HexFormat.of().formatHex(s.serialize(change))).isEqualTo(CHANGE_V2);
        assertThat(HexFormat.of().formatHex(s.serialize(commit))).isEqualTo(COMMIT_V1);
        assertThat(s.deserialize(2, HexFormat.of().parseHex(CHANGE_V2))).isEqualTo(change);
        assertThat(s.deserialize(2, HexFormat.of().parseHex(COMMIT_V1))).isEqualTo(commit);
        assertThat(s.deserialize(1, HexFormat.of().parseHex(COMMIT_V1))).isEqualTo(commit);
        assertThatThrownBy(() -> s.deserialize(1, HexFormat.of().parseHex(CHANGE_V1))).isInstanceOf(CdcException.class)
                .hasMessageContaining("without the change's command id");
    }

    @Test
    void chunkMarksReadTheirFrozenBytesOfBothVersions() throws IOException {
        SqlServerChunkMarkSerializer s = SqlServerChunkMarkSerializer.INSTANCE;
        SqlServerChunkMark mark = SqlServerChunkMark.of(COMMIT, 581577110);
        assertThat(s.getVersion()).isEqualTo(2);
        assertThat(HexFormat.of().formatHex(s.serialize(mark))).isEqualTo(MARK_V2);
        assertThat(s.deserialize(2, HexFormat.of().parseHex(MARK_V2))).isEqualTo(mark);
        SqlServerChunkMark old = s.deserialize(1, HexFormat.of().parseHex(MARK_V1));
        assertThat(old).isEqualTo(SqlServerChunkMark.withoutObject(COMMIT));
        assertThat(old.objectId()).isEqualTo(SqlServerChunkMark.UNKNOWN_OBJECT);
        assertThatThrownBy(() -> s.deserialize(1, HexFormat.of().parseHex(MARK_V2))).hasMessageContaining("unread bytes");
        assertThatThrownBy(() -> s.deserialize(2, HexFormat.of().parseHex(MARK_V1))).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> s.deserialize(2, HexFormat.of().parseHex(MARK_V1 + "00000000")))
                .isInstanceOf(IOException.class).hasMessageContaining("object_id 0");
        assertThatThrownBy(() -> s.deserialize(3, HexFormat.of().parseHex(MARK_V2))).isInstanceOf(CdcException.class)
                .hasMessageContaining("serializer version 3");
    }

    @Test
    void randomPositionsRoundTrip() throws IOException {
        long seed = Long.getLong("rustcdc.sqlserver.seed", System.nanoTime());
        System.out.println("SqlServerStateSerializersTest seed " + seed + " (replay with -Drustcdc.sqlserver.seed="
                + seed + ")");
        Random random = new Random(seed);
        SqlServerPositionSerializer s = SqlServerPositionSerializer.INSTANCE;
        for (int i = 0; i < 2_000; i++) {
            Lsn commit = randomLsn(random);
            SqlServerPosition p = random.nextBoolean() ? SqlServerPosition.afterCommit(commit)
                    : SqlServerPosition.afterChange(commit, random.nextInt(), randomLsn(random),
                            ChangeOperation.values()[random.nextInt(4)]);
            assertThat(s.deserialize(s.getVersion(), s.serialize(p))).as("seed %d", seed).isEqualTo(p);
            SqlServerChunkMark mark = SqlServerChunkMark.of(commit, random.nextInt(Integer.MAX_VALUE) + 1);
            SqlServerChunkMarkSerializer marks = SqlServerChunkMarkSerializer.INSTANCE;
            assertThat(marks.deserialize(marks.getVersion(), marks.serialize(mark))).as("seed %d", seed).isEqualTo(mark);
        }
    }

    @Test
    void refusesUnknownVersionsAndBytes() {
        SqlServerPositionSerializer s = SqlServerPositionSerializer.INSTANCE;
        assertThatThrownBy(() -> s.deserialize(3, HexFormat.of().parseHex(COMMIT_V1))).isInstanceOf(CdcException.class)
                .hasMessageContaining("serializer version 3");
        assertThatThrownBy(() -> s.deserialize(2, HexFormat.of().parseHex(COMMIT_V1 + "00")))
                .hasMessageContaining("unread bytes");
        assertThatThrownBy(() -> s.deserialize(2, HexFormat.of().parseHex("0000002d000001a80003" + "02")))
                .hasMessageContaining("kind byte 2");
        assertThatThrownBy(() -> s.deserialize(2, HexFormat.of().parseHex(CHANGE_V2.replaceAll("04$", "05"))))
                .isInstanceOf(IOException.class).hasMessageContaining("code read by this connector: 5");
        assertThatThrownBy(() -> SqlServerChunkMarkSerializer.INSTANCE.deserialize(1, new byte[11]))
                .hasMessageContaining("unread");
    }

    private static Lsn randomLsn(Random random) {
        byte[] b = new byte[Lsn.BYTES];
        random.nextBytes(b);
        return Lsn.of(b);
    }
}
