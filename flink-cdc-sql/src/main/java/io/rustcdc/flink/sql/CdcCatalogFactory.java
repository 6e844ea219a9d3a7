package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.filter.TableFilter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CommonCatalogOptions;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * What every rustcdc catalog factory does with a {@code CREATE CATALOG}: checks its options, refuses a literal
 * {@code 'password'}, and builds a {@link CdcCatalog} whose tables get every option of the catalog but the
 * catalog's own ({@code table.include-list}, {@code table.exclude-list}, and where a connector has it {@code
 * default-database}). A connector supplies its table factory, its naming and the options that name a table,
 * which the catalog supplies per table instead of taking them.
 */
@Internal
abstract class CdcCatalogFactory implements CatalogFactory {

    /** The connector's table factory, whose tables the catalog lists. */
    abstract CdcTableFactory<?, ?> tableFactory();

    /** The options of the table factory that name a table: supplied per table, so not options of the catalog. */
    abstract Set<ConfigOption<?>> namingOptions();

    /** The options of the catalog itself, not passed on to its tables, besides the include and exclude lists. */
    Set<ConfigOption<?>> ownOptions() {
        return Set.of();
    }

    /** How the catalog names the tables, given its options. */
    abstract CatalogNaming naming(ReadableConfig options);

    /**
     * The options of the connector the catalog reads the catalogue with (discovery and descriptions only), from
     * those its tables get; the same by default.
     */
    Map<String, String> catalogueOptions(Map<String, String> tableOptions) {
        return tableOptions;
    }

    /** The Flink database a session is in after {@code USE CATALOG}. */
    abstract String defaultDatabase(ReadableConfig options);

    @Override
    public String factoryIdentifier() {
        return tableFactory().factoryIdentifier();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<String> required = keys(requiredOptions());
        Set<String> left = keys(namingOptions());
        left.add(ConnectionOptions.PASSWORD.key());
        Set<ConfigOption<?>> optional = new HashSet<>();
        for (ConfigOption<?> o : tableFactory().requiredOptions()) {
            if (!required.contains(o.key()) && !left.contains(o.key())) {
                optional.add(o);
            }
        }
        for (ConfigOption<?> o : tableFactory().optionalOptions()) {
            if (!required.contains(o.key()) && !left.contains(o.key())) {
                optional.add(o);
            }
        }
        optional.add(CdcSourceOptions.TABLE_INCLUDE_LIST);
        optional.add(CdcSourceOptions.TABLE_EXCLUDE_LIST);
        for (ConfigOption<?> o : ownOptions()) {
            if (!required.contains(o.key())) {
                optional.add(o);
            }
        }
        return optional;
    }

    @Override
    public Catalog createCatalog(Context context) {
        if (context.getOptions().containsKey(ConnectionOptions.PASSWORD.key())) {
            throw new ValidationException("Catalog " + context.getName() + " of type '" + factoryIdentifier()
                    + "' does not take '" + ConnectionOptions.PASSWORD.key() + "': Flink shows a catalog's options as "
                    + "they were written (SHOW CREATE CATALOG, DESCRIBE CATALOG EXTENDED) and a catalog store keeps "
                    + "them. Set '" + ConnectionOptions.PASSWORD_ENV.key() + "' (an environment variable's name) or '"
                    + ConnectionOptions.PASSWORD_FILE.key() + "' (a file's path) instead.");
        }
        FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        Map<String, String> tableOptions = new HashMap<>(context.getOptions());
        tableOptions.remove(CommonCatalogOptions.CATALOG_TYPE.key());
        tableOptions.remove(FactoryUtil.PROPERTY_VERSION.key());
        tableOptions.remove(CdcSourceOptions.TABLE_INCLUDE_LIST.key());
        tableOptions.remove(CdcSourceOptions.TABLE_EXCLUDE_LIST.key());
        ownOptions().forEach(o -> tableOptions.remove(o.key()));
        TableFilter filter = TableFilter.of(options.get(CdcSourceOptions.TABLE_INCLUDE_LIST),
                options.get(CdcSourceOptions.TABLE_EXCLUDE_LIST));
        return new CdcCatalog(context.getName(), defaultDatabase(options), tableFactory(), tableOptions,
                catalogueOptions(tableOptions), filter, naming(options), context.getClassLoader());
    }

    private static Set<String> keys(Set<ConfigOption<?>> options) {
        Set<String> keys = new HashSet<>();
        options.forEach(o -> keys.add(o.key()));
        return keys;
    }
}
