package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.ValueType;
import java.io.Serializable;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * How one database orders the values of chunk key columns, as its ascending {@code ORDER BY} does.
 * The database finds chunk boundaries ({@link CatalogSession#nextChunkEnd}); the framework decides
 * with this order which chunk holds a changed key, so both must agree for every value of every type
 * this order {@linkplain #orders orders}. A key with a column of any other type is read as one chunk.
 * Supplied by the connector ({@link CdcConnector#keyOrder()}); stateless and thread-safe.
 *
 * <pre>{@code
 * KeyOrder order = connector.keyOrder();
 * if (order.orders(types)) { int c = order.compare(types, key, chunkEnd); }
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
