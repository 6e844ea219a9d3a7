package io.rustcdc.flink.sql;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Options of the SQL connectors only; the rest are the connectors' and {@code CdcSourceOptions}. */
@PublicEvolving
public final class SqlOptions {
    private SqlOptions() {}

    public static final ConfigOption<String> TABLE_NAME = ConfigOptions.key("table-name")
            .stringType()
            .noDefaultValue()
            .withDescription("The source table: schema.table, or a table name in 'schema-name' (for MySQL and MariaDB, "
                    + "a table of 'database-name'). A glob pattern ('orders_*'; '*' any run of characters, '?' one) "
                    + "reads every matching table as one SQL table; a backslash escapes *, ?, . and \\ in a name.");

    public static final ConfigOption<String> SCHEMA_NAME = ConfigOptions.key("schema-name")
            .stringType()
            .defaultValue("public")
            .withDescription("The schema of 'table-name' when that names no schema; a glob pattern as in "
                    + "'table-name'.");

    public static final ConfigOption<Boolean> UPSERT_KEY_UNIQUE_ACROSS_TABLES = ConfigOptions
            .key("upsert.key-unique-across-tables")
            .booleanType()
            .defaultValue(false)
            .withDescription("With 'changelog-mode' = 'upsert' and a 'table-name' pattern: the user's promise that no "
                    + "PRIMARY KEY value occurs in two of the matched tables (rows of different tables with one key "
                    + "would overwrite each other downstream). Without it, upsert mode refuses a pattern.");

    public static final ConfigOption<String> CHANGELOG_MODE = ConfigOptions.key("changelog-mode")
            .stringType()
            .defaultValue("all")
            .withDescription("all: +I, -U, +U, -D (needs the database to send whole old rows for the -U and -D rows; "
                    + "the connector's documentation names the setting); "
                    + "upsert: +I, +U, -D keyed by the primary key (needs a declared PRIMARY KEY).");
}
