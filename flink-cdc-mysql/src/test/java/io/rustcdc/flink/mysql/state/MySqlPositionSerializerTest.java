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
            MySqlPosition.at("binlog.000042", 88_371, MySqlGtidSet.parse(UUID + ":1-500")).startOf(UUID + ":501")
                    .inTransaction(0, 2),
            MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77")).startOf("0-1-78")
                    .inTransaction(1, 1),
            MySqlPosition.at(ServerFlavor.MYSQL, "binlog.000001", 4).on(UUID),
            MySqlPosition.at("binlog.000042", 88_371, MySqlGtidSet.parse(UUID + ":1-500")).on(UUID).inTransaction(3, 1),
            MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77")).on("2").startOf("0-1-78")
                    .inTransaction(1, 1),
        }) {
            assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(p))).isEqualTo(p);
        }
    }

    @Test
    void readsVersion1Bytes() throws IOException {
        MySqlPosition p = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"))
                .inTransaction(2, 5);
        assertThat(serializer.deserialize(1, HexFormat.of().parseHex(V1))).isEqualTo(p);
        assertThat(p.toString()).isEqualTo("mariadb-bin.000003:1234#2.5 [0-1-77]");
        MySqlPosition mysql = MySqlPosition.at(ServerFlavor.MYSQL, "binlog.000001", 4);
        assertThat(serializer.deserialize(1, HexFormat.of().parseHex(V1_MYSQL))).isEqualTo(mysql);
    }

    @Test
    void version2WritesTheFlavorAsItsCode() throws IOException {
        MySqlPosition p = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"))
                .inTransaction(2, 5);
        assertThat(serializer.deserialize(2, HexFormat.of().parseHex(V2))).isEqualTo(p);
        byte[] mysql = serializer.serialize(MySqlPosition.at(ServerFlavor.MYSQL, "binlog.000001", 4));
        assertThat(mysql[0]).as("MySQL's code").isEqualTo((byte) 1);
        byte[] unknown = HexFormat.of().parseHex(V2);
        unknown[0] = 0;
        assertThatThrownBy(() -> serializer.deserialize(2, unknown)).hasMessageContaining("Unknown server flavor code 0");
    }

    @Test
    void version3AddsTheGtidOfTheTransactionThePositionIsInside() throws IOException {
        MySqlPosition p = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"))
                .startOf("0-1-78").inTransaction(2, 5);
        assertThat(serializer.deserialize(3, HexFormat.of().parseHex(V3))).isEqualTo(p);
        assertThat(serializer.deserialize(3, HexFormat.of().parseHex(V3)).server()).as("version 3 names no server")
                .isNull();
        byte[] between = HexFormat.of().parseHex(V2 + "00");
        assertThat(serializer.deserialize(3, between))
                .isEqualTo(MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"))
                        .inTransaction(2, 5));
        byte[] wrongFlavor = HexFormat.of().parseHex(V3.substring(0, V3.length() - 12) + "613a623a6364"); // a:b:cd
        assertThatThrownBy(() -> serializer.deserialize(3, wrongFlavor)).isInstanceOf(IOException.class)
                .hasMessageContaining("'a:b:cd' is not a MARIADB GTID");
    }

    @Test
    void version4AddsTheServerTheFileAndOffsetAreOf() throws IOException {
        MySqlPosition p = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"))
                .startOf("0-1-78").inTransaction(2, 5).on("2");
        assertThat(serializer.getVersion()).isEqualTo(4);
        assertThat(HexFormat.of().formatHex(serializer.serialize(p))).isEqualTo(V4);
        assertThat(serializer.deserialize(4, HexFormat.of().parseHex(V4))).isEqualTo(p);
        assertThat(p.server()).isEqualTo("2");
        MySqlPosition unknown = p.on(null);
        byte[] bytes = serializer.serialize(unknown);
        assertThat(bytes[bytes.length - 1]).as("no server").isZero();
        assertThat(serializer.deserialize(4, bytes)).isEqualTo(unknown).isNotEqualTo(p);
        MySqlPosition mysql = MySqlPosition.at("binlog.000042", 88_371, MySqlGtidSet.parse(UUID + ":1-500")).on(UUID);
        assertThat(serializer.deserialize(4, serializer.serialize(mysql)).server()).isEqualTo(UUID);
    }

    @Test
    void theServerTakesPartInEqualityButNotInOrderNorText() {
        MySqlPosition a = MySqlPosition.at(ServerFlavor.MYSQL, "binlog.000001", 1234).on(UUID);
        MySqlPosition b = MySqlPosition.at(ServerFlavor.MYSQL, "binlog.000001", 1234)
                .on("4a5b6c7d-71ca-11e1-9e33-c80aa9429562");
        assertThat(a).isNotEqualTo(b).isNotEqualTo(a.on(null)).isEqualTo(b.on(UUID));
        assertThat(a.compareTo(b)).isZero();
        assertThat(a).hasToString("binlog.000001:1234");
        assertThat(a.movedTo("binlog.000002", 4).server()).as("derived positions keep it").isEqualTo(UUID);
        assertThat(a.startOf(null).inTransaction(1, 2).committed("binlog.000001", 2000, null).server()).isEqualTo(UUID);
    }

    @Test
    void unknownVersionsAndTheWrongFlavorsGtidsFail() {
        assertThatThrownBy(() -> serializer.deserialize(5, new byte[0])).isInstanceOf(CdcException.class)
                .hasMessageContaining("version 5");
        MySqlPosition mariadb = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"));
        assertThatThrownBy(mariadb::mysqlGtids).hasMessageContaining("A MARIADB position has no MYSQL GTIDs");
        assertThatThrownBy(() -> MySqlPosition.restore(ServerFlavor.MYSQL, "binlog.000001", 4, 0, 0, "0-1-77"))
                .hasMessageContaining("It is a MariaDB GTID position");
    }

    /**
     * Version-1 bytes of {@code mariadb-bin.000003:1234#2.5 [0-1-77]}: flavor, file, offset, events, rows, GTIDs.
     * Never change them.
     */
    private static final String V1 = "01" + "00000012" + "6d6172696164622d62696e2e303030303033" + "00000000000004d2"
            + "0000000000000002" + "0000000000000005" + "01" + "00000006" + "302d312d3737";

    /** Version-1 bytes of {@code binlog.000001:4} on Oracle MySQL (flavor ordinal 0, no GTIDs). Never change them. */
    private static final String V1_MYSQL = "00" + "0000000d" + "62696e6c6f672e303030303031" + "0000000000000004"
            + "0000000000000000" + "0000000000000000" + "00";

    /** Version-2 bytes of the position of {@link #V1}: the same but the flavor's code (MariaDB: 2). Never change them. */
    private static final String V2 = "02" + V1.substring(2);

    /**
     * Version-3 bytes of {@code mariadb-bin.000003:1234#2.5(0-1-78) [0-1-77]}: version 2's, then the
     * transaction's GTID (nullable string). Never change them.
     */
    private static final String V3 = V2 + "01" + "00000006" + "302d312d3738";

    /**
     * Version-4 bytes of the position of {@link #V3} on the MariaDB server with {@code @@server_id} 2:
     * version 3's, then the server (nullable string). Never change them.
     */
    private static final String V4 = V3 + "01" + "00000001" + "32";
}
