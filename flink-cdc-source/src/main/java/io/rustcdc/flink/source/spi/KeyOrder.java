package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * How one database orders the values of chunk key columns, as its ascending {@code ORDER BY} does.
 * The database finds chunk boundaries ({@link CatalogSession#nextChunkEnd}); the framework decides
 * with this order which chunk holds a changed key, so both must agree for every value of every type
 * this order {@linkplain #orders orders}. A key with a column of any other type is read as one chunk.
 * Text is ordered by a collation: the connector names a column's collation in its {@link
 * TableDescription#collation description}, and the methods taking a {@code collation} (null for a
 * column without one) decide with it; a connector that orders no text need not override them. A
 * column this order cannot compare may still be split when the database itself places keys among
 * chunk bounds ({@link #placedByServer}, {@link CatalogSession#placeKeys}).
 * Supplied by the connector ({@link CdcConnector#keyOrder()}); stateless and thread-safe.
 *
 * <pre>{@code
 * KeyOrder order = connector.keyOrder();
 * if (order.orders(types, collations)) { int c = order.compare(types, collations, key, chunkEnd); }
 * }</pre>
 */
@PublicEvolving
public interface KeyOrder extends Serializable {

    /** Whether values of {@code type} are compared here exactly as the database orders them. */
    boolean orders(ValueType type);

    /**
     * Compares two values of a column of {@code type} as the database orders them; either may be null
     * (a SQL NULL), and the database decides where nulls go.
     *
     * @throws IllegalArgumentException when {@link #orders} is false for {@code type}
     */
    int compare(ValueType type, @Nullable Object a, @Nullable Object b);

    /**
     * Whether values of a column of {@code type} ordered by {@code collation} (the connector's name
     * for it, null when the column has none) are compared here exactly as the database orders them.
     */
    default boolean orders(ValueType type, @Nullable String collation) {
        return orders(type);
    }

    /**
     * Compares two values of a column of {@code type} and {@code collation} as the database orders
     * them; equal (0) for distinct values the collation does not tell apart.
     *
     * @throws IllegalArgumentException when {@link #orders(ValueType, String)} is false
     */
    default int compare(ValueType type, @Nullable String collation, @Nullable Object a, @Nullable Object b) {
        return compare(type, a, b);
    }

    /**
     * Whether the database places values of a column of {@code type} and {@code collation} among chunk
     * bounds by its own comparison ({@link CatalogSession#placeKeys}), for a column this order does not
     * compare ({@link #orders(ValueType, String)} false), such as text of a linguistic collation. Such
     * a key is split into chunks too; the handoff then asks the database which chunk holds each changed
     * key, one query per batch of the stream while the table is in the handoff. False unless the
     * connector says.
     */
    default boolean placedByServer(ValueType type, @Nullable String collation) {
        return false;
    }

    /**
     * Whether a column of type {@code a} and collation {@code collationA} orders its values as one of type {@code b}
     * and collation {@code collationB} does, so that chunks planned in the one may be read in the other (a key column
     * altered while its table is snapshotted, {@link io.rustcdc.flink.source.split.ChunkKey#requireOrderOf}). By
     * default: the same kind of value, an integer's width aside (INTEGER and BIGINT values compare as longs), and the
     * same collation by name; a connector whose collations have two names overrides it.
     */
    default boolean sameOrder(ValueType a, @Nullable String collationA, ValueType b, @Nullable String collationB) {
        return longs(a) == longs(b) && (longs(a) || a.kind() == b.kind())
                && Objects.equals(collationA, collationB);
    }

    private static boolean longs(ValueType type) {
        return type.kind() == ValueKind.INTEGER || type.kind() == ValueKind.BIGINT;
    }

    /** Whether every one of {@code types}, with its collation (null entries where none), is ordered. */
    default boolean orders(List<ValueType> types, List<String> collations) {
        for (int i = 0; i < types.size(); i++) {
            if (!orders(types.get(i), collations.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Compares two keys of the given column types and collations, column by column. */
    default int compare(List<ValueType> types, List<String> collations, Object[] a, Object[] b) {
        for (int i = 0; i < types.size(); i++) {
            int c = compare(types.get(i), collations.get(i), a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** Whether every one of {@code types} is {@linkplain #orders(ValueType) ordered}. */
    default boolean orders(List<ValueType> types) {
        return types.stream().allMatch(this::orders);
    }

    /** Compares two keys of the given column types, column by column. */
    default int compare(List<ValueType> types, Object[] a, Object[] b) {
        for (int i = 0; i < types.size(); i++) {
            int c = compare(types.get(i), a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }
}
