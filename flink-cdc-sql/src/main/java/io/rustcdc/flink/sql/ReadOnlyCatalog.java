package io.rustcdc.flink.sql;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;

/**
 * A catalog that only shows what a database holds: no views, functions, partitions or statistics, and
 * every change refused with a message that says so. Subclasses list databases and tables and describe
 * them.
 */
@Internal
abstract class ReadOnlyCatalog extends AbstractCatalog {

    ReadOnlyCatalog(String name, String defaultDatabase) {
        super(name, defaultDatabase);
    }

    private UnsupportedOperationException readOnly(String what) {
        return new UnsupportedOperationException("Catalog " + getName() + " is read-only: it shows the source "
                + "database's tables as the database describes them, so it cannot " + what
                + ". Change the database itself, or declare a table of your own with CREATE TABLE in another catalog.");
    }

    @Override
    public void open() {
        // nothing to open: every call reads the database's catalogue on a connection of its own
    }

    @Override
    public void close() {
        // nothing held between calls
    }

    @Override
    public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists) {
        throw readOnly("create database " + name);
    }

    @Override
    public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade) {
        throw readOnly("drop database " + name);
    }

    @Override
    public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists) {
        throw readOnly("alter database " + name);
    }

    @Override
    public List<String> listViews(String databaseName) {
        return List.of();
    }

    @Override
    public void dropTable(ObjectPath tablePath, boolean ignoreIfNotExists) {
        throw readOnly("drop table " + tablePath.getFullName());
    }

    @Override
    public void renameTable(ObjectPath tablePath, String newTableName, boolean ignoreIfNotExists) {
        throw readOnly("rename table " + tablePath.getFullName());
    }

    @Override
    public void createTable(ObjectPath tablePath, CatalogBaseTable table, boolean ignoreIfExists) {
        throw readOnly("create table " + tablePath.getFullName());
    }

    @Override
    public void alterTable(ObjectPath tablePath, CatalogBaseTable newTable, boolean ignoreIfNotExists) {
        throw readOnly("alter table " + tablePath.getFullName());
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath tablePath) {
        return List.of();
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
        return List.of();
    }

    @Override
    public List<CatalogPartitionSpec> listPartitionsByFilter(ObjectPath tablePath, List<Expression> filters) {
        return List.of();
    }

    @Override
    public CatalogPartition getPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
            throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
    }

    @Override
    public boolean partitionExists(ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
        return false;
    }

    @Override
    public void createPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec, CatalogPartition partition,
            boolean ignoreIfExists) {
        throw readOnly("create a partition");
    }

    @Override
    public void dropPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec, boolean ignoreIfNotExists) {
        throw readOnly("drop a partition");
    }

    @Override
    public void alterPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec, CatalogPartition newPartition,
            boolean ignoreIfNotExists) {
        throw readOnly("alter a partition");
    }

    @Override
    public List<String> listFunctions(String dbName) {
        return List.of();
    }

    @Override
    public CatalogFunction getFunction(ObjectPath functionPath) throws FunctionNotExistException {
        throw new FunctionNotExistException(getName(), functionPath);
    }

    @Override
    public boolean functionExists(ObjectPath functionPath) {
        return false;
    }

    @Override
    public void createFunction(ObjectPath functionPath, CatalogFunction function, boolean ignoreIfExists) {
        throw readOnly("create function " + functionPath.getFullName());
    }

    @Override
    public void alterFunction(ObjectPath functionPath, CatalogFunction newFunction, boolean ignoreIfNotExists) {
        throw readOnly("alter function " + functionPath.getFullName());
    }

    @Override
    public void dropFunction(ObjectPath functionPath, boolean ignoreIfNotExists) {
        throw readOnly("drop function " + functionPath.getFullName());
    }

    @Override
    public CatalogTableStatistics getTableStatistics(ObjectPath tablePath) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getTableColumnStatistics(ObjectPath tablePath) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public CatalogTableStatistics getPartitionStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getPartitionColumnStatistics(ObjectPath tablePath,
            CatalogPartitionSpec partitionSpec) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public void alterTableStatistics(ObjectPath tablePath, CatalogTableStatistics tableStatistics,
            boolean ignoreIfNotExists) {
        throw readOnly("alter statistics");
    }

    @Override
    public void alterTableColumnStatistics(ObjectPath tablePath, CatalogColumnStatistics columnStatistics,
            boolean ignoreIfNotExists) {
        throw readOnly("alter statistics");
    }

    @Override
    public void alterPartitionStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec,
            CatalogTableStatistics partitionStatistics, boolean ignoreIfNotExists) {
        throw readOnly("alter statistics");
    }

    @Override
    public void alterPartitionColumnStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec,
            CatalogColumnStatistics columnStatistics, boolean ignoreIfNotExists) {
        throw readOnly("alter statistics");
    }

    /** A database of the source, with a comment and no properties. */
    static final class SourceDatabase implements CatalogDatabase {
        private final String comment;

        SourceDatabase(String comment) {
            this.comment = comment;
        }

        @Override
        public Map<String, String> getProperties() {
            return Map.of();
        }

        @Override
        public String getComment() {
            return comment;
        }

        @Override
        public CatalogDatabase copy() {
            return this;
        }

        @Override
        public CatalogDatabase copy(Map<String, String> properties) {
            return this;
        }

        @Override
        public Optional<String> getDescription() {
            return Optional.of(comment);
        }

        @Override
        public Optional<String> getDetailedDescription() {
            return Optional.of(comment);
        }
    }
}
