package io.rustcdc.flink.postgres.testing;

import io.rustcdc.flink.postgres.PostgresSourceConfig;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;

/** Source configurations for a test database, as its replication role, over plaintext. */
public final class PostgresTestConfigs {
    private PostgresTestConfigs() {}

    /** A builder with host, port, database, credentials and TLS set; slot and publication are the caller's. */
    public static PostgresSourceConfig.Builder builder(PostgresDatabase db) {
        return PostgresSourceConfig.builder()
                .hostname(db.host())
                .port(db.port())
                .database(db.name())
                .username(db.replicationUser())
                .password(Secret.of(db.replicationPassword()))
                .tlsMode(TlsMode.DISABLE);
    }

    /** Streaming with slot and publication {@code name}, both created when missing. */
    public static PostgresSourceConfig streaming(PostgresDatabase db, String name) {
        return builder(db).slotName(name).publicationName(name)
                .createSlotIfMissing(true).createPublicationIfMissing(true).build();
    }
}
