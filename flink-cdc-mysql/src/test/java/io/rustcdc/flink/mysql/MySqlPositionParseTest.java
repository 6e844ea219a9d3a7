package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.StartupMode;
import org.junit.jupiter.api.Test;

class MySqlPositionParseTest {

    @Test
    void positionsParseAsTheyPrint() {
        MySqlPosition p = MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77,2-5-9"))
                .inTransaction(2, 5);
        assertThat(MySqlPosition.parse(ServerFlavor.MARIADB, p.toString())).isEqualTo(p);
        assertThat(MySqlPosition.parse(ServerFlavor.MARIADB, " mariadb-bin.000003:1234 "))
                .isEqualTo(MySqlPosition.at(ServerFlavor.MARIADB, "mariadb-bin.000003", 1234));
        assertThat(MySqlConnector.create(MySqlSourceConfig.builder(ServerFlavor.MYSQL).hostname("h").username("u")
                .password(io.rustcdc.flink.source.Secret.of("p")).serverId(1).build()).parsePosition("binlog.000001:4"))
                .isEqualTo(MySqlPosition.at(ServerFlavor.MYSQL, "binlog.000001", 4));
    }

    @Test
    void aPositionInsideATransactionPrintsAndParsesItsGtid() {
        String uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        MySqlPosition p = MySqlPosition.at("mysql-bin.000003", 1234, MySqlGtidSet.parse(uuid + ":1-77"))
                .startOf(uuid + ":78").inTransaction(2, 5);
        assertThat(p.toString()).isEqualTo("mysql-bin.000003:1234#2.5(" + uuid + ":78) [" + uuid + ":1-77]");
        assertThat(MySqlPosition.parse(ServerFlavor.MYSQL, p.toString())).isEqualTo(p);
        assertThat(p.transactionGtid()).isEqualTo(uuid + ":78");
        assertThat(p.movedTo("mysql-bin.000003", 2000).transactionGtid()).as("between transactions").isNull();
        MySqlPosition tagged = MySqlPosition.at("mysql-bin.000003", 1234, MySqlGtidSet.parse(uuid + ":1-77:tag_a:1"))
                .startOf(uuid + ":tag_a:2").inTransaction(1, 3);
        assertThat(MySqlPosition.parse(ServerFlavor.MYSQL, tagged.toString())).isEqualTo(tagged);
        assertThat(tagged.toString()).contains("(" + uuid + ":tag_a:2)");
        assertThat(tagged.movedTo("mysql-bin.000003", 2000).committed("mysql-bin.000003", 2000, uuid + ":tag_a:2")
                .gtidText()).isEqualTo(uuid + ":1-77:tag_a:1-2");
        assertThatThrownBy(() -> MySqlPosition.parse(ServerFlavor.MYSQL, "mysql-bin.000003:1234#2.5(0-1-78)"))
                .hasMessageContaining("'0-1-78' is not a MYSQL GTID");
    }

    @Test
    void anythingElseIsRefusedWithTheFormToWrite() {
        for (String bad : new String[] {"mariadb-bin.000003", "0/16B3748", "f:12x", "f:2"}) {
            assertThatThrownBy(() -> MySqlPosition.parse(ServerFlavor.MARIADB, bad)).as(bad)
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                    .hasMessageContaining("is not a binlog position");
        }
        assertThatThrownBy(() -> MySqlPosition.parse(ServerFlavor.MARIADB, "f:4 [3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5]"))
                .isInstanceOf(CdcException.class);
    }

    @Test
    void theStartupModeCarriesThePositionAndOnlyItsModeTakesOne() {
        StartupMode mode = StartupMode.parse("specific-offset", "mariadb-bin.000001:4");
        assertThat(mode.kind()).isEqualTo(StartupMode.Kind.POSITION);
        assertThat(mode.position()).isEqualTo("mariadb-bin.000001:4");
        assertThatThrownBy(() -> StartupMode.parse("specific-offset", null))
                .hasMessageContaining("scan.startup.specific-offset");
        assertThatThrownBy(() -> StartupMode.parse("latest-offset", "mariadb-bin.000001:4"))
                .hasMessageContaining("use 'specific-offset'");
    }

    @Test
    void aCommitAddsItsGtidOnlyToAPositionThatHasTheExecutedSet() {
        MySqlPosition withGtids = MySqlPosition.at("mariadb-bin.000001", 100, MariaDbGtidPosition.parse("0-1-7,1-1-3"));
        assertThat(withGtids.committed("mariadb-bin.000001", 200, "0-1-8").gtidText()).isEqualTo("0-1-8,1-1-3");
        // GTIDs gathered from the transactions seen would miss domain 1 and make a resume check call it purged
        MySqlPosition without = MySqlPosition.at(ServerFlavor.MARIADB, "mariadb-bin.000001", 100);
        assertThat(without.committed("mariadb-bin.000001", 200, "0-1-8").gtidText()).isNull();
        MySqlPosition mysql = MySqlPosition.at("binlog.000001", 100,
                MySqlGtidSet.parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"));
        assertThat(mysql.committed("binlog.000001", 200, "3e11fa47-71ca-11e1-9e33-c80aa9429562:6").gtidText())
                .isEqualTo("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-6");
    }
}
