package io.rustcdc.flink.mysql.testing;

import io.rustcdc.flink.mysql.MySqlSourceConfig;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.source.Secret;
import java.util.concurrent.atomic.AtomicLong;

/** Source configurations for a test database: the CDC user, and a server id no other test uses. */
public final class MySqlTestConfigs {
    private static final AtomicLong SERVER_IDS = new AtomicLong(6000 + (ProcessHandle.current().pid() % 1000) * 1000);

    private MySqlTestConfigs() {}

    public static MySqlSourceConfig.Builder builder(MySqlDatabase db) {
        return MySqlSourceConfig.builder(db.server().isMariaDb() ? ServerFlavor.MARIADB : ServerFlavor.MYSQL)
                .hostname(db.host()).port(db.port()).username(db.cdcUser()).password(Secret.of(db.cdcPassword()))
                .serverId(SERVER_IDS.incrementAndGet());
    }

    public static MySqlSourceConfig config(MySqlDatabase db) {
        return builder(db).build();
    }
}
