package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.types.PgTextException;
import io.rustcdc.flink.postgres.types.TextDecoder;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import java.util.List;

/**
 * Decodes the text values of one table's rows, column by column, into the values of its {@link
 * RowType}. The snapshot and the stream use the same decoder for the same column types. A value
 * that does not decode stops capture with the table, column and declared type, never the value.
 */
final class RowDecoder {
    private final TableId table;
    private final RowType rowType;
    private final List<RowShape.Column> columns;
    private final TextDecoder[] decoders;

    RowDecoder(TableId table, RowType rowType, List<RowShape.Column> columns, TextDecoder[] decoders) {
        if (decoders.length != rowType.size() || columns.size() != rowType.size()) {
            throw new IllegalArgumentException("One decoder and column per field of " + rowType);
        }
        this.table = table;
        this.rowType = rowType;
        this.columns = columns;
        this.decoders = decoders;
    }

    RowType rowType() {
        return rowType;
    }

    int size() {
        return decoders.length;
    }

    /** The value of column {@code i} from its text; null text is SQL NULL. */
    Object decode(int i, String text) {
        if (text == null) {
            return null;
        }
        try {
            return decoders[i].decode(text);
        } catch (RuntimeException e) {
            throw failure(i, e);
        }
    }

    /** The value of column {@code i} from its UTF-8 text {@code text[from, to)}, read in place. */
    Object decode(int i, byte[] text, int from, int to) {
        try {
            return decoders[i].decode(text, from, to);
        } catch (RuntimeException e) {
            throw failure(i, e);
        }
    }

    private CdcException failure(int i, RuntimeException e) {
        // JDK parsers quote their input: of theirs keep only what kind of failure it was
        return failure(i, e instanceof PgTextException ? e.getMessage()
                : "not a valid value of the type (" + e.getClass().getSimpleName() + ")");
    }

    private CdcException failure(int i, String why) {
        RowShape.Column c = columns.get(i);
        return new CdcException(CdcException.Kind.DECODE, "Cannot decode column " + c.name() + " of table "
                + table.qualifiedName() + " (type " + c.dataType() + "): " + why);
    }
}
