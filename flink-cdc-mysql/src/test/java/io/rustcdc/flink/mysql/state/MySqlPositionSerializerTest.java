package io.rustcdc.flink.mysql.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.MariaDbGtidPosition;
import io.rustcdc.flink.mysql.MySqlGtidSet;
import io.rustcdc.flink.mysql.MySqlPosition;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class MySqlPositionSerializerTest {
    private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    private final MySqlPositionSerializer serializer = MySqlPositionSerializer.INSTANCE;

    @Test
    void positionsOfBothFlavorsRoundTrip() throws IOException {
        for (MySqlPosition p : new MySqlPosition[] {
            MySqlPosition.at(ServerFlavor.MYSQL, "binlog.000001", 4),
            MySqlPosition.at("binlog.000042", 88_371, MySqlGtidSet.parse(UUID + ":1-500")).inTransaction(3, 1),
            MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77,1-2-18446744073709551615")),
        }) {
            assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(p))).isEqualTo(p);
        }
    }

    @Test
    void readsVersion1Bytes() throws IOException {
        MySqlPosition p = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"))
                .inTransaction(2, 5);
        String bytes = HexFormat.of().formatHex(serializer.serialize(p));
        assertThat(serializer.deserialize(1, HexFormat.of().parseHex(V1))).isEqualTo(p);
        assertThat(bytes).isEqualTo(V1);
        assertThat(p.toString()).isEqualTo("mariadb-bin.000003:1234#2.5 [0-1-77]");
    }

    @Test
    void unknownVersionsAndTheWrongFlavorsGtidsFail() {
        assertThatThrownBy(() -> serializer.deserialize(2, new byte[0])).isInstanceOf(CdcException.class)
                .hasMessageContaining("version 2");
        MySqlPosition mariadb = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"));
        assertThatThrownBy(mariadb::mysqlGtids).hasMessageContaining("A MARIADB position has no MYSQL GTIDs");
        assertThatThrownBy(() -> MySqlPosition.restore(ServerFlavor.MYSQL, "binlog.000001", 4, 0, 0, "0-1-77"))
                .hasMessageContaining("It is a MariaDB GTID position");
    }

    /** Version-1 bytes of {@code mariadb-bin.000003:1234#2.5 [0-1-77]}: flavor, file, offset, events, rows, GTIDs. Never change them. */
    private static final String V1 = "01" + "00000012" + "6d6172696164622d62696e2e303030303033" + "00000000000004d2"
            + "0000000000000002" + "0000000000000005" + "01" + "00000006" + "302d312d3737";
}
