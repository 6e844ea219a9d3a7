package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A chunk's query failed on rows its row filter was evaluated on: the database accepted the condition
 * when the snapshot started (see {@link CatalogSession#rowFilterProblem}), but evaluating it failed on
 * some rows (a division by zero, a cast of a value that does not convert, a subquery of more than one
 * row). A connector throws it from {@link CatalogSession#nextChunkEnd(TableDescription, java.util.List,
 * Object[], int, String)} and {@link CatalogSession#readChunk(TableDescription, java.util.List, Object[],
 * Object[], String, java.util.function.Consumer)} ({@link RowFilters#chunkFailure} decides); the framework
 * says where the filter came from and what to do. Final: the same rows fail the same way again.
 */
@PublicEvolving
public final class RowFilterFailure extends CdcException {
    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final String rowFilter;
    private final String serverMessage;

    public RowFilterFailure(TableId table, String rowFilter, String serverMessage, Throwable cause) {
        super(Kind.CONFIGURATION, "The row filter of table " + table + ", [" + rowFilter + "], failed on the rows of "
                + "a chunk: " + serverMessage, cause);
        this.table = Objects.requireNonNull(table, "table");
        this.rowFilter = Objects.requireNonNull(rowFilter, "rowFilter");
        this.serverMessage = Objects.requireNonNull(serverMessage, "serverMessage");
    }

    public TableId table() {
        return table;
    }

    public String rowFilter() {
        return rowFilter;
    }

    /** What the database said. */
    public String serverMessage() {
        return serverMessage;
    }
}
