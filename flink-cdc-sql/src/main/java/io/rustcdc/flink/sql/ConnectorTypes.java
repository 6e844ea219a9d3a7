package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import java.io.Serializable;
import javax.annotation.Nullable;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * One connector's part of Flink SQL: which Flink types hold the values of a column of its database
 * exactly, decided from the column's declared type and value kind, and the words its messages need
 * where a change arrives without its whole old row. Each table factory supplies its connector's;
 * the shared SQL code knows no database's type names or settings. Most implementations extend
 * {@link ExactTypes}, which decides by value kind and asks only what the declared type text says.
 */
interface ConnectorTypes extends Serializable {

    /**
     * Why {@code flink} cannot hold every value of {@code column} (whose values have {@code type})
     * exactly, as a remedy such as {@code "use BIGINT"}; null when it can.
     */
    @Nullable
    String problem(RowShape.Column column, ValueType type, LogicalType flink);

    /** The Flink SQL type a column maps to by default, as documented, e.g. {@code DECIMAL(12, 4)}. */
    String defaultType(RowShape.Column column, ValueType type);

    /**
     * What makes the database send whole old rows for {@code table}, as a statement or setting, e.g.
     * {@code ALTER TABLE public.orders REPLICA IDENTITY FULL}.
     */
    String wholeRowsRemedy(TableId table);

    /**
     * What makes every change carry the columns its rows need, e.g. {@code ALTER TABLE public.orders
     * REPLICA IDENTITY FULL, or set 'toast.reselect' = 'true'}; by default {@link #wholeRowsRemedy}.
     */
    default String unsentValuesRemedy(TableId table) {
        return wholeRowsRemedy(table);
    }

    /** Why a change may arrive without some of a row's columns, e.g. {@code an unchanged TOASTed value}. */
    String partialRowCause();

    /**
     * Whether changelog-mode {@code upsert} reads the table without whole old rows, so that it is a
     * remedy too; false where the source needs whole rows in every mode.
     */
    boolean upsertNeedsOnlyKeys();

    /**
     * Whether a column's type change from {@code before} to {@code after} (type texts as the row shapes give them)
     * keeps every stored value: a widening known to convert none. Otherwise the values may have been rewritten
     * without a row change in the log. By default only an unchanged type text.
     */
    default boolean keepsValues(String before, String after) {
        return before.equals(after);
    }
}
