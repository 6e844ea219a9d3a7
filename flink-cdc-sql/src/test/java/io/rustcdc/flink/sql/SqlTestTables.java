package io.rustcdc.flink.sql;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;

/** The {@code WITH} clause of a {@code rustcdc-postgres} test table on a test database. */
final class SqlTestTables {
    private SqlTestTables() {}

    /**
     * Options for {@code table} read through its own slot and publication {@code slot} (created when
     * missing), over plaintext, followed by {@code extra} (", 'key' = 'value'..." or empty).
     */
    static String with(PostgresDatabase db, String table, String slot, String extra) {
        return "WITH ('connector' = 'rustcdc-postgres', 'hostname' = '" + db.host() + "', 'port' = '" + db.port()
                + "', 'username' = '" + db.replicationUser() + "', 'password' = '" + db.replicationPassword()
                + "', 'database-name' = '" + db.name() + "', 'table-name' = '" + table + "', 'slot.name' = '" + slot
                + "', 'publication.name' = '" + slot + "', 'slot.create-if-missing' = 'true', "
                + "'publication.create-if-missing' = 'true', 'tls.mode' = 'disable'" + extra + ")";
    }
}
