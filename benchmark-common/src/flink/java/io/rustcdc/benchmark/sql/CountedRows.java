package io.rustcdc.benchmark.sql;

import io.rustcdc.benchmark.Measurement;
import java.io.Serializable;
import java.util.function.ToLongFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * What the SQL path's counting sink does with a row, on either side ({@link CountingTableFactory}): counts it as
 * it is (RowData, nothing converted) and discards it. An update arrives as two rows, -U and +U: the -U is not
 * counted, so that one change counts once, as on the JSON path. A row's commit time ({@link #applyAsLong}) is read
 * from the commit time column only while latency is measured.
 */
public final class CountedRows implements Serializable, ToLongFunction<RowData> {
    private static final long serialVersionUID = 1L;
    private final int commitIndex;
    private final int commitPrecision;

    /** @param commitIndex the commit time column's index, or -1 when there is none */
    CountedRows(int commitIndex, int commitPrecision) {
        this.commitIndex = commitIndex;
        this.commitPrecision = commitPrecision;
    }

    /** Counts {@code row} unless it is an update's -U. */
    public void arrived(RowData row) {
        if (row.getRowKind() != RowKind.UPDATE_BEFORE) {
            Measurement.arrived(row, this);
        }
    }

    /** The commit time of {@code row}, in epoch milliseconds. */
    @Override
    public long applyAsLong(RowData row) {
        if (commitIndex < 0) {
            throw new IllegalStateException("The counting sink has no commit time column to measure latency from");
        }
        return row.getTimestamp(commitIndex, commitPrecision).getMillisecond();
    }
}
