package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * A read-only Flink catalog of one rustcdc connector's source tables: the tables its include and exclude
 * patterns select, each with the schema its row shape gives ({@link CatalogSchema}) and the catalog's options
 * plus the table's name, so that {@code SELECT * FROM cat.db.tbl} plans the connector's source table and a
 * query's {@code OPTIONS} hint overrides any option. Every call reads the database's
 * catalogue now, on a connection of its own that it closes: nothing is cached, so the schema follows the source.
 */
@Internal
final class CdcCatalog extends ReadOnlyCatalog {
    private final CdcTableFactory<?, ?> tables;
    /** The options every table of the catalog gets (connection and source options), without a table's name. */
    private final Map<String, String> tableOptions;
    /** The options of the connector that reads the catalogue. */
    private final Map<String, String> catalogueOptions;
    private final TableFilter filter;
    private final CatalogNaming naming;
    private final ClassLoader classLoader;

    CdcCatalog(String name, String defaultDatabase, CdcTableFactory<?, ?> tables, Map<String, String> tableOptions,
            Map<String, String> catalogueOptions, TableFilter filter, CatalogNaming naming, ClassLoader classLoader) {
        super(name, defaultDatabase);
        this.tables = tables;
        this.tableOptions = Map.copyOf(tableOptions);
        this.catalogueOptions = Map.copyOf(catalogueOptions);
        this.filter = filter;
        this.naming = naming;
        this.classLoader = classLoader;
    }

    @Override
    public List<String> listDatabases() {
        return session("list its databases", s -> naming.databases(s.discoverTables(filter)));
    }

    @Override
    public CatalogDatabase getDatabase(String databaseName) throws DatabaseNotExistException {
        if (!databaseExists(databaseName)) {
            throw new DatabaseNotExistException(getName(), databaseName);
        }
        return new SourceDatabase("source database " + databaseName + ", read by " + tables.factoryIdentifier());
    }

    @Override
    public boolean databaseExists(String databaseName) {
        return listDatabases().contains(databaseName);
    }

    @Override
    public List<String> listTables(String databaseName) throws DatabaseNotExistException {
        List<TableId> found = session("list the tables of " + databaseName, s -> s.discoverTables(filter));
        if (!naming.databases(found).contains(databaseName)) {
            throw new DatabaseNotExistException(getName(), databaseName);
        }
        List<String> names = new ArrayList<>();
        for (TableId table : found) {
            if (naming.databaseOf(table).equals(databaseName)) {
                names.add(naming.objectName(table));
            }
        }
        return names;
    }

    @Override
    public boolean tableExists(ObjectPath tablePath) {
        TableId table = selected(tablePath);
        return table != null
                && session("look for " + tablePath.getFullName(), s -> s.discoverTables(filter)).contains(table);
    }

    @Override
    public CatalogBaseTable getTable(ObjectPath tablePath) throws TableNotExistException {
        TableId table = selected(tablePath);
        String flinkName = getName() + "." + tablePath.getFullName();
        TableDescription description = table == null ? null : session("describe " + flinkName,
                s -> s.discoverTables(filter).contains(table) ? s.describe(table) : null);
        if (description == null) {
            throw new TableNotExistException(getName(), tablePath);
        }
        Map<String, String> options = new TreeMap<>(tableOptions);
        options.put(FactoryUtil.CONNECTOR.key(), tables.factoryIdentifier());
        options.putAll(naming.tableOptions(table));
        return CatalogTable.newBuilder()
                .schema(CatalogSchema.derive(description, tables.connectorTypes(), flinkName, classLoader))
                .comment("source table " + table.qualifiedName() + " of database " + table.database() + ", read by "
                        + tables.factoryIdentifier())
                .options(options)
                .build();
    }

    /** The source table {@code path} names, when the patterns select it; null otherwise. */
    @Nullable
    private TableId selected(ObjectPath path) {
        TableId table = naming.table(path.getDatabaseName(), path.getObjectName());
        return table != null && filter.matches(table) ? table : null;
    }

    /** {@code call} on a catalogue session of its own, closed after it. */
    private <T> T session(String what, Function<CatalogSession<?, ?>, T> call) {
        try (CatalogSession<?, ?> session = tables.connector(Configuration.fromMap(catalogueOptions)).openSession()) {
            return call.apply(session);
        } catch (CdcException e) {
            throw new CatalogException("Catalog " + getName() + " could not " + what + ": " + e.getMessage(), e);
        }
    }
}
