package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.Comparator;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A table's whole identity: database, schema and table name. MySQL and MariaDB have no schema
 * level, so there the schema is the database. A synthetic table (such as PostgreSQL's logical
 * messages, {@code <prefix>__messages}) has no schema. Immutable.
 *
 * <pre>{@code
 * TableId orders = TableId.of("shop", "public", "orders");
 * }</pre>
 */
@PublicEvolving
public final class TableId implements Serializable, Comparable<TableId> {
    private static final long serialVersionUID = 1L;

    private final String database;
    @Nullable private final String schema;
    private final String table;
    /** The hash, computed once: a TableId is a key of the per-event lookups (0 until computed). */
    private transient int hash;

    private TableId(String database, @Nullable String schema, String table) {
        this.database = Objects.requireNonNull(database, "database");
        this.schema = schema;
        this.table = Objects.requireNonNull(table, "table");
    }

    public static TableId of(String database, @Nullable String schema, String table) {
        return new TableId(database, schema, table);
    }

    public String database() {
        return database;
    }

    /** The schema, or null for a table that belongs to none. */
    @Nullable
    public String schema() {
        return schema;
    }

    public String table() {
        return table;
    }

    /** {@code schema.table}, or the bare table name when there is no schema. */
    public String qualifiedName() {
        return schema == null ? table : schema + "." + table;
    }

    private static final Comparator<TableId> ORDER = Comparator.comparing(TableId::database)
            .thenComparing(TableId::schema, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(TableId::table);

    @Override
    public int compareTo(TableId other) {
        return ORDER.compare(this, other);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TableId)) {
            return false;
        }
        TableId other = (TableId) o;
        return hashCode() == other.hashCode() && database.equals(other.database) && Objects.equals(schema, other.schema)
                && table.equals(other.table);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            // Objects.hash(database, schema, table), without its array
            h = 31 * (31 * (31 + database.hashCode()) + Objects.hashCode(schema)) + table.hashCode();
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return database + ":" + qualifiedName();
    }
}
