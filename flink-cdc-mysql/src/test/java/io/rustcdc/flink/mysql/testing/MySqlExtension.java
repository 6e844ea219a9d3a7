package io.rustcdc.flink.mysql.testing;

import io.rustcdc.flink.testing.FreshDatabaseExtension;

/**
 * Gives each test class a fresh {@link MySqlDatabase} on the JVM's shared {@link MySqlServer}.
 *
 * <pre>{@code
 * @ExtendWith(MySqlExtension.class)
 * class MyITCase {
 *     @Test
 *     void reads(MySqlDatabase db) { db.execute("CREATE TABLE t (id INT PRIMARY KEY)"); }
 * }
 * }</pre>
 */
public final class MySqlExtension extends FreshDatabaseExtension<MySqlDatabase> {
    public MySqlExtension() {
        super(MySqlDatabase.class);
    }

    @Override
    protected MySqlDatabase create(String hint) {
        return MySqlServer.shared().createDatabase(hint);
    }

    @Override
    protected void drop(MySqlDatabase database) {
        database.drop();
    }
}
