package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.stream.CommitClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The checks a stream needs, each failing with what was found and the statement that fixes it: the
 * CDC schema, CDC on the database and on each table, a capture instance per table, the SQL Server
 * Agent and the database's capture job (SQL Server only; Azure SQL Database runs capture itself), the
 * gating role of each instance, SELECT on the table, the log statistics a chunk's mark is read from, the
 * CDC schema's tables the stream reads, and, with commit times, that the server's clock runs at the
 * configured offset.
 */
final class SqlServerPrerequisites {
    /** {@code SERVERPROPERTY('EngineEdition')} of Azure SQL Database, which has no Agent. */
    private static final int AZURE_SQL_DATABASE = 5;
    /** The SELECT/VIEW permission was denied on the object. */
    static final int PERMISSION_DENIED = 229;
    private static final int VIEW_STATE_DENIED = 300;

    private SqlServerPrerequisites() {}

    static void checkDatabase(Connection c, SqlServerSourceConfig config) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT SCHEMA_ID(?)")) {
            s.setString(1, config.cdcSchema());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                rs.getInt(1);
                if (rs.wasNull()) {
                    throw prerequisite("Database " + config.database() + " has no schema '" + config.cdcSchema()
                            + "' (option '" + SqlServerSourceConfig.CDC_SCHEMA + "'): CDC is not enabled on it, or its "
                            + "CDC schema has another name. Enable CDC (a sysadmin runs: USE "
                            + SqlServerSql.quote(config.database()) + "; EXEC sys.sp_cdc_enable_db;) or fix the option.");
                }
            }
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT is_cdc_enabled FROM sys.databases WHERE database_id = DB_ID()")) {
            if (!rs.next() || !rs.getBoolean(1)) {
                throw prerequisite("CDC is not enabled on database " + config.database() + " (sys.databases."
                        + "is_cdc_enabled = 0). A sysadmin runs: USE " + SqlServerSql.quote(config.database())
                        + "; EXEC sys.sp_cdc_enable_db;");
            }
        }
        requireLogStats(c, config);
        requireCaptureJob(c, config);
        requireCdcTables(c, config);
        if (config.serverTimeZone() != null) {
            CommitClock clock = new CommitClock(config.serverTimeZone());
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT DATEPART(TZOFFSET, SYSDATETIMEOFFSET())")) {
                rs.next();
                clock.requireServerOffset(rs.getInt(1), SqlServerSourceConfig.SERVER_TIME_ZONE);
            }
        }
    }

    /**
     * The stream reads the CDC schema's tables directly: the capture instances ({@code change_tables}),
     * the columns each captures ({@code captured_columns}, to classify an instance's switch), each
     * instance's change table ({@code __$command_id}) and, with commit times, {@code lsn_time_mapping}.
     */
    private static void requireCdcTables(Connection c, SqlServerSourceConfig config) throws SQLException {
        String schema = SqlServerSql.quote(config.cdcSchema());
        List<String> tables = config.serverTimeZone() == null ? List.of("change_tables", "captured_columns")
                : List.of("change_tables", "captured_columns", "lsn_time_mapping");
        for (String table : tables) {
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT TOP (0) * FROM " + schema + "." + SqlServerSql.quote(table)).close();
            } catch (SQLException e) {
                if (e.getErrorCode() != PERMISSION_DENIED) {
                    throw e;
                }
                throw prerequisite("User '" + config.connection().username() + "' cannot read " + config.cdcSchema()
                        + "." + table + " (" + e.getMessage() + "), which the stream reads with the change tables: "
                        + "GRANT SELECT ON SCHEMA::" + schema + " TO " + login(config) + ";");
            }
        }
    }

    /** A chunk's mark is the log's end LSN, read from {@code sys.dm_db_log_stats}. */
    private static void requireLogStats(Connection c, SqlServerSourceConfig config) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT log_end_lsn FROM sys.dm_db_log_stats(DB_ID())").close();
        } catch (SQLException e) {
            if (e.getErrorCode() != VIEW_STATE_DENIED && e.getErrorCode() != PERMISSION_DENIED) {
                throw e;
            }
            throw prerequisite("User '" + config.connection().username() + "' cannot read sys.dm_db_log_stats (" + e.getMessage()
                    + "), where a snapshot chunk's mark (the log's end LSN) is read: GRANT VIEW DATABASE STATE TO "
                    + login(config) + "; (SQL Server 2022 and later: VIEW DATABASE "
                    + "PERFORMANCE STATE)");
        }
    }

    /**
     * The capture job fills the change tables: without it, or with the Agent stopped, the stream
     * waits forever. Azure SQL Database has no Agent (its scheduler runs capture).
     */
    private static void requireCaptureJob(Connection c, SqlServerSourceConfig config) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CAST(SERVERPROPERTY('EngineEdition') AS int)")) {
            rs.next();
            if (rs.getInt(1) == AZURE_SQL_DATABASE) {
                return;
            }
        }
        String agent;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT status_desc FROM sys.dm_server_services WHERE servicename LIKE "
                        + "N'SQL Server Agent%'")) {
            agent = rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            if (e.getErrorCode() != VIEW_STATE_DENIED && e.getErrorCode() != PERMISSION_DENIED) {
                throw e;
            }
            throw prerequisite("User '" + config.connection().username() + "' cannot see whether SQL Server Agent runs "
                    + "(sys.dm_server_services: " + e.getMessage() + "), which runs the capture job that fills the "
                    + "change tables: GRANT VIEW SERVER STATE TO " + login(config) + ";");
        }
        if (agent != null && !"Running".equalsIgnoreCase(agent)) {
            throw prerequisite("SQL Server Agent is " + agent + ": its capture job fills the change tables, so the "
                    + "stream would see no change. Start the Agent service (Linux: sudo /opt/mssql/bin/mssql-conf set "
                    + "sqlagent.enabled true, then restart mssql-server).");
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM msdb.dbo.cdc_jobs WHERE database_id = DB_ID() "
                        + "AND job_type = N'capture'")) {
            rs.next();
            if (rs.getInt(1) == 0) {
                throw prerequisite("Database " + config.database() + " has no CDC capture job: EXEC "
                        + "sys.sp_cdc_add_job @job_type = N'capture'; (as db_owner), then start it with EXEC "
                        + "sys.sp_cdc_start_job @job_type = N'capture';");
            }
        } catch (SQLException e) {
            if (e.getErrorCode() != PERMISSION_DENIED) {
                throw e;
            }
            throw prerequisite("User '" + config.connection().username() + "' cannot read msdb.dbo.cdc_jobs (" + e.getMessage()
                    + ") to check the database's capture job: USE msdb; CREATE USER " + login(config) + " FOR LOGIN "
                    + login(config) + "; GRANT SELECT ON "
                    + "dbo.cdc_jobs TO " + login(config) + ";");
        }
    }

    /** CDC on each table, a capture instance with a floor, SELECT on the table and the instance's gating role. */
    static void checkTables(Connection c, SqlServerSourceConfig config, List<TableId> tables,
            List<SqlServerCatalog.InstanceRow> instances) throws SQLException {
        for (TableId table : tables) {
            String name = SqlServerCatalog.name(table);
            try (PreparedStatement s = c.prepareStatement("SELECT is_tracked_by_cdc FROM sys.tables WHERE object_id "
                    + "= OBJECT_ID(?, 'U')")) {
                s.setString(1, SqlServerSql.qualified(table));
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next() || !rs.getBoolean(1)) {
                        throw prerequisite("CDC is not enabled on table " + name + " of database " + config.database()
                                + ". As db_owner: EXEC sys.sp_cdc_enable_table @source_schema = N'" + table.schema()
                                + "', @source_name = N'" + table.table() + "', @role_name = NULL;");
                    }
                }
            }
            boolean found = false;
            for (SqlServerCatalog.InstanceRow row : instances) {
                if (row.instance.table().equals(table)) {
                    found = true;
                    requireRole(c, config, row);
                }
            }
            if (!found) {
                throw prerequisite("Table " + name + " is tracked by CDC but has no capture instance the capture job "
                        + "has started (" + config.cdcSchema() + ".change_tables.start_lsn is NULL): check that the "
                        + "capture job runs (EXEC sys.sp_cdc_help_jobs;) and try again.");
            }
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT TOP (0) * FROM " + SqlServerSql.qualified(table)).close();
            } catch (SQLException e) {
                if (e.getErrorCode() != PERMISSION_DENIED) {
                    throw e;
                }
                throw prerequisite("User '" + config.connection().username() + "' cannot read " + name + " (" + e.getMessage()
                        + "): GRANT SELECT ON " + SqlServerSql.qualified(table) + " TO "
                        + login(config) + ";");
            }
        }
    }

    private static void requireRole(Connection c, SqlServerSourceConfig config, SqlServerCatalog.InstanceRow row)
            throws SQLException {
        if (row.role == null) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT IS_ROLEMEMBER(?)")) {
            s.setString(1, row.role);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                if (rs.getInt(1) != 1) {
                    throw prerequisite("Capture instance '" + row.instance.name() + "' of table "
                            + SqlServerCatalog.name(row.instance.table()) + " is gated by role '" + row.role + "', of "
                            + "which user '" + config.connection().username() + "' is not a member: ALTER ROLE "
                            + SqlServerSql.quote(row.role) + " ADD MEMBER " + login(config) + ";");
                }
            }
        }
    }

    /** The configured login, quoted for a statement. */
    private static String login(SqlServerSourceConfig config) {
        return SqlServerSql.quote(config.connection().username());
    }

    private static CdcException prerequisite(String message) {
        return new CdcException(CdcException.Kind.PREREQUISITE, message);
    }
}
