package io.rustcdc.flink.postgres.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.Lsn;
import io.rustcdc.flink.postgres.PostgresChunkMark;
import io.rustcdc.flink.postgres.PostgresPosition;
import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class PostgresStateSerializersTest {
    /** Version-1 bytes of {@code inTransaction(16/B374D848, 3, 770)}; never change them. */
    private static final String POSITION_V1 = "00000016b374d84800000000000000030000000000000302";
    /** Version-1 bytes of {@code 100:110:105,107 @ 0/500}; never change them. */
    private static final String MARK_V1 = "0000000000000064" + "000000000000006e" + "00000002" + "0000000000000069"
            + "000000000000006b" + "0000000000000500";
    /** Version-2 bytes of {@code 100:110:105,107 @ 0/500} of relation 16384; never change them. */
    private static final String MARK_V2 = MARK_V1 + "0000000000004000";
    /** Version-3 bytes of the version-2 mark whose key was read in order {@code id integer}; never change them. */
    private static final String MARK_V3 = MARK_V2 + "01" + "000a" + "696420696e7465676572";

    @Test
    void positionRoundTripsAndReadsVersion1Bytes() throws IOException {
        PostgresPosition position = PostgresPosition.inTransaction(Lsn.valueOf("16/B374D848"), 3, 770);
        PostgresPositionSerializer s = PostgresPositionSerializer.INSTANCE;
        assertThat(s.deserialize(s.getVersion(), s.serialize(position))).isEqualTo(position);
        assertThat(HexFormat.of().formatHex(s.serialize(position))).isEqualTo(POSITION_V1);
        assertThat(s.deserialize(1, HexFormat.of().parseHex(POSITION_V1))).isEqualTo(position);
        PostgresPosition between = PostgresPosition.at(Lsn.valueOf("0/10"));
        assertThat(s.deserialize(1, s.serialize(between))).isEqualTo(between);
        assertThatThrownBy(() -> s.deserialize(2, new byte[24])).isInstanceOf(CdcException.class)
                .hasMessageContaining("serializer version 2");
        assertThatThrownBy(() -> s.deserialize(1, new byte[25])).hasMessageContaining("unread bytes");
    }

    @Test
    void markRoundTripsAndReadsVersion1And2Bytes() throws IOException {
        PostgresChunkMark mark = PostgresChunkMark.parse("100:110:105,107", Lsn.valueOf("0/500")).ofRelation(16384);
        PostgresChunkMarkSerializer s = PostgresChunkMarkSerializer.INSTANCE;
        assertThat(s.getVersion()).isEqualTo(3);
        assertThat(s.deserialize(s.getVersion(), s.serialize(mark))).isEqualTo(mark);
        PostgresChunkMark ordered = mark.ofRelation(16384, "id integer");
        assertThat(s.deserialize(s.getVersion(), s.serialize(ordered))).isEqualTo(ordered).isNotEqualTo(mark);
        assertThat(HexFormat.of().formatHex(s.serialize(ordered))).isEqualTo(MARK_V3);
        assertThat(s.deserialize(3, HexFormat.of().parseHex(MARK_V3)).keyOrder()).isEqualTo("id integer");
        // version 2 kept no key order: the mark reads without one
        assertThat(s.deserialize(2, HexFormat.of().parseHex(MARK_V2))).isEqualTo(mark);
        assertThatThrownBy(() -> s.deserialize(2, HexFormat.of().parseHex(MARK_V3))).hasMessageContaining("unread bytes");
        // version 1 kept no relation id: the mark reads without one
        PostgresChunkMark v1 = s.deserialize(1, HexFormat.of().parseHex(MARK_V1));
        assertThat(v1).isEqualTo(PostgresChunkMark.parse("100:110:105,107", Lsn.valueOf("0/500")));
        assertThat(v1.relationId()).isEqualTo(PostgresChunkMark.UNKNOWN_RELATION);
        assertThatThrownBy(() -> s.deserialize(1, HexFormat.of().parseHex(MARK_V2))).hasMessageContaining("unread bytes");
        assertThatThrownBy(() -> s.deserialize(2, HexFormat.of().parseHex(MARK_V1))).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> s.deserialize(7, new byte[0])).isInstanceOf(CdcException.class);
    }
}
