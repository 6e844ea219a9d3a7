package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the connector refuses at the start, and how it says so (skipped without a server, see {@link SqlServerDatabase}). */
@ExtendWith(SqlServerExtension.class)
@Timeout(300)
class SqlServerPrerequisitesITCase {
    @Test
    void aTableWithoutCdcFailsWithTheStatementThatEnablesIt(SqlServerDatabase db) {
        db.execute("CREATE TABLE p_plain (id INT PRIMARY KEY)");
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> s = SqlServerConnector.create(db.config().build())
                .openSession()) {
            assertThatThrownBy(() -> s.prepareStream(List.of(TableId.of(db.name(), "dbo", "p_plain")), true))
                    .isInstanceOf(CdcException.class)
                    .hasMessageContaining("CDC is not enabled on table dbo.p_plain")
                    .hasMessageContaining("EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = "
                            + "N'p_plain'");
        }
    }

    @Test
    void aWrongCdcSchemaOptionNamesTheSchema(SqlServerDatabase db) {
        db.execute("CREATE TABLE p_schema (id INT PRIMARY KEY)");
        db.enableTable("p_schema");
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> s = SqlServerConnector.create(db.config().cdcSchema("changes")
                .build()).openSession()) {
            assertThatThrownBy(() -> s.prepareStream(List.of(TableId.of(db.name(), "dbo", "p_schema")), true))
                    .hasMessageContaining("has no schema 'changes' (option 'cdc.schema')");
        }
    }

    /** Commit times are read at the configured offset: a server whose clock runs at another is refused at the start. */
    @Test
    void aServerTimeZoneOtherThanTheServersClockIsRefused(SqlServerDatabase db) {
        db.execute("CREATE TABLE p_zone (id INT PRIMARY KEY)");
        db.enableTable("p_zone");
        String other = "Z".equals(db.serverTimeZone()) ? "+14:00" : "UTC";
        SqlServerConnector connector = SqlServerConnector.create(db.config().serverTimeZone(other).build());
        assertThatThrownBy(() -> db.prepare(connector, List.of(TableId.of(db.name(), "dbo", "p_zone"))))
                .isInstanceOf(CdcException.class).hasMessageContaining("SQL Server's clock runs at UTC")
                .hasMessageContaining("'server-time-zone' says UTC");
        db.prepare(SqlServerConnector.create(db.config().serverTimeZone(db.serverTimeZone()).build()),
                List.of(TableId.of(db.name(), "dbo", "p_zone")));
    }

    @Test
    void anSqlVariantColumnIsRefusedByName(SqlServerDatabase db) {
        db.execute("CREATE TABLE p_variant (id INT PRIMARY KEY, v SQL_VARIANT NULL)");
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> s = SqlServerConnector.create(db.config().build())
                .openSession()) {
            assertThatThrownBy(() -> s.describe(TableId.of(db.name(), "dbo", "p_variant")))
                    .hasMessageContaining("Table dbo.p_variant column v is of type sql_variant");
        }
    }

    @Test
    void aWrongPasswordFailsWithoutShowingIt(SqlServerDatabase db) {
        SqlServerConnector connector = SqlServerConnector.create(db.config()
                .password(io.rustcdc.flink.source.Secret.of("not-the-password-4711")).build());
        assertThatThrownBy(connector::openSession).isInstanceOf(CdcException.class)
                .hasMessageContaining("Check user, password")
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage())
                        .doesNotContain("not-the-password-4711"));
    }
}
