package io.rustcdc.flink.sqlserver.testing;

import io.rustcdc.flink.testing.FreshDatabaseExtension;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives each test class a fresh CDC-enabled {@link SqlServerDatabase} on the given server, and skips
 * each test (reported as skipped) when no server is given.
 *
 * <pre>{@code
 * @ExtendWith(SqlServerExtension.class)
 * class MyITCase {
 *     @Test
 *     void reads(SqlServerDatabase db) { db.execute("CREATE TABLE t (id INT PRIMARY KEY)"); }
 * }
 * }</pre>
 */
public final class SqlServerExtension extends FreshDatabaseExtension<SqlServerDatabase> implements BeforeEachCallback {
    public SqlServerExtension() {
        super(SqlServerDatabase.class);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (SqlServerDatabase.given()) {
            super.beforeAll(context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        SqlServerDatabase.assumeGiven();
    }

    @Override
    protected SqlServerDatabase create(String hint) {
        return SqlServerDatabase.create(hint);
    }

    @Override
    protected void drop(SqlServerDatabase database) {
        database.close();
    }
}
