package io.rustcdc.flink.mysql.binlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.MySqlSourceConfig;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.source.Secret;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BinlogClientsTest {

    /** Nagle's algorithm off: with it each binlog connection's sign-in waited 40 ms for a delayed acknowledgement. */
    @Test
    void aBinlogSocketSendsAtOnceKeepsAliveAndBoundsItsReads() throws Exception {
        MySqlSourceConfig config = MySqlSourceConfig.builder(ServerFlavor.MYSQL).hostname("db").username("cdc")
                .password(Secret.of("s3cret-value")).serverId(5401).binlogReadTimeout(Duration.ofSeconds(7)).build();
        try (Socket socket = BinlogClients.socket(config)) {
            assertThat(socket.getTcpNoDelay()).isTrue();
            assertThat(socket.getKeepAlive()).isTrue();
            assertThat(socket.getSoTimeout()).isEqualTo(7_000);
        }
    }
}
