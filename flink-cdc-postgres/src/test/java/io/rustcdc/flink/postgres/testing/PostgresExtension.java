package io.rustcdc.flink.postgres.testing;

import io.rustcdc.flink.testing.FreshDatabaseExtension;

/**
 * Gives each test class a fresh {@link PostgresDatabase} on the JVM's shared {@link PostgresServer}.
 *
 * <pre>{@code
 * @ExtendWith(PostgresExtension.class)
 * class MyITCase {
 *     @Test
 *     void reads(PostgresDatabase db) { db.execute("CREATE TABLE t (id int primary key)"); }
 * }
 * }</pre>
 */
public final class PostgresExtension extends FreshDatabaseExtension<PostgresDatabase> {
    public PostgresExtension() {
        super(PostgresDatabase.class);
    }

    @Override
    protected PostgresDatabase create(String hint) {
        return PostgresServer.shared().createDatabase(hint);
    }

    @Override
    protected void drop(PostgresDatabase database) {
        database.drop();
    }
}
