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
        assertThat(serializer.getVersion()).isEqualTo(3);
        assertThat(HexFormat.of().formatHex(serializer.serialize(p))).isEqualTo(V3);
        assertThat(serializer.deserialize(3, HexFormat.of().parseHex(V3))).isEqualTo(p);
        MySqlPosition between = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"));
        byte[] bytes = serializer.serialize(between);
        assertThat(bytes[bytes.length - 1]).as("no transaction GTID between transactions").isZero();
        assertThat(serializer.deserialize(3, bytes)).isEqualTo(between);
        byte[] wrongFlavor = HexFormat.of().parseHex(V3.substring(0, V3.length() - 12) + "613a623a6364"); // a:b:cd
        assertThatThrownBy(() -> serializer.deserialize(3, wrongFlavor)).isInstanceOf(IOException.class)
                .hasMessageContaining("'a:b:cd' is not a MARIADB GTID");
    }

    @Test
    void unknownVersionsAndTheWrongFlavorsGtidsFail() {
        assertThatThrownBy(() -> serializer.deserialize(4, new byte[0])).isInstanceOf(CdcException.class)
                .hasMessageContaining("version 4");
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
}
