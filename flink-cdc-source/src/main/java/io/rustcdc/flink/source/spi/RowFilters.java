package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Helpers for a connector's row filters (see {@link CatalogSession#nextChunkEnd(TableDescription,
 * java.util.List, Object[], int, String)}): raw, trusted SQL conditions added to a chunk's query.
 */
@PublicEvolving
public final class RowFilters {
    private RowFilters() {}

    /**
     * {@code where} (a condition, or empty for none) with {@code rowFilter} added as {@code AND
     * (<rowFilter>)}; the result is empty or a condition, without the word {@code WHERE}.
     */
    public static String and(String where, @Nullable String rowFilter) {
        if (rowFilter == null) {
            return where;
        }
        String filter = "(" + rowFilter + ")";
        return where.isEmpty() ? filter : where + " AND " + filter;
    }

    /** {@code " WHERE <condition>"}, or empty when {@code condition} is. */
    public static String where(String condition) {
        return condition.isEmpty() ? "" : " WHERE " + condition;
    }

    static CdcException unsupported(TableId table) {
        return new CdcException(CdcException.Kind.CONFIGURATION, "A row filter is set for " + table
                + ", but this connector reads no chunk with a row filter; remove the filter");
    }
}
