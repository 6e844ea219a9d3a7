package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.model.TableId;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * How a rustcdc catalog names the source's tables in Flink ({@code catalog.database.table}), and the table
 * options that name a source table again for its table factory, escaped ({@link SourceTables#escape}) so
 * that a catalog table reads only itself, never the tables its name would match as a pattern. Two namings:
 *
 * <ul>
 *   <li>{@link #schemaQualified}: PostgreSQL and SQL Server. The catalog is the one database it connects to,
 *       which is its only Flink database; a table is named {@code schema.table}, as Flink's JDBC catalog names
 *       PostgreSQL tables: {@code pg.shop.`public.orders`}.
 *   <li>{@link #databases}: MySQL and MariaDB, whose databases are schemas of one server. Each database is a
 *       Flink database, a table is its name: {@code my.shop.orders}.
 * </ul>
 */
@Internal
abstract class CatalogNaming {

    /** The Flink databases of a catalog whose source tables are {@code tables}. */
    abstract List<String> databases(List<TableId> tables);

    /** The Flink name of {@code table} in its Flink database. */
    abstract String objectName(TableId table);

    /** The Flink database {@code table} is in. */
    abstract String databaseOf(TableId table);

    /** The source table Flink's {@code database} and {@code objectName} name; null when they name none. */
    @Nullable
    abstract TableId table(String database, String objectName);

    /** The options of a table factory that name {@code table}: its {@code table-name} and, where needed, more. */
    abstract Map<String, String> tableOptions(TableId table);

    /** One database; tables named {@code schema.table}. */
    static CatalogNaming schemaQualified(String database) {
        return new SchemaQualified(database);
    }

    /** Each database of the server a Flink database; tables named by their name. */
    static CatalogNaming databases() {
        return new Databases();
    }

    private static final class SchemaQualified extends CatalogNaming {
        private final String database;

        SchemaQualified(String database) {
            this.database = database;
        }

        @Override
        List<String> databases(List<TableId> tables) {
            return List.of(database);
        }

        @Override
        String objectName(TableId table) {
            return table.qualifiedName();
        }

        @Override
        String databaseOf(TableId table) {
            return database;
        }

        @Override
        @Nullable
        TableId table(String flinkDatabase, String objectName) {
            int dot = objectName.indexOf('.');
            if (!flinkDatabase.equals(database) || dot <= 0 || dot == objectName.length() - 1) {
                return null;
            }
            return TableId.of(database, objectName.substring(0, dot), objectName.substring(dot + 1));
        }

        @Override
        Map<String, String> tableOptions(TableId table) {
            // escaped, so that the table factory reads exactly this table: a name is never a pattern, and a dot in
            // it never splits schema from table
            return Map.of(SqlOptions.TABLE_NAME.key(), SourceTables.escape(table.schema()) + "."
                    + SourceTables.escape(table.table()));
        }
    }

    private static final class Databases extends CatalogNaming {
        @Override
        List<String> databases(List<TableId> tables) {
            TreeSet<String> names = new TreeSet<>();
            tables.forEach(t -> names.add(t.database()));
            return List.copyOf(names);
        }

        @Override
        String objectName(TableId table) {
            return table.table();
        }

        @Override
        String databaseOf(TableId table) {
            return table.database();
        }

        @Override
        TableId table(String database, String objectName) {
            return TableId.of(database, database, objectName);
        }

        @Override
        Map<String, String> tableOptions(TableId table) {
            // escaped, so that the table factory reads exactly this table: a name is never a pattern
            return Map.of("database-name", SourceTables.escape(table.database()), SqlOptions.TABLE_NAME.key(),
                    SourceTables.escape(table.table()));
        }
    }
}
