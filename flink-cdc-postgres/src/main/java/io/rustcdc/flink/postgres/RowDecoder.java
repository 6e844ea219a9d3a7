package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.types.BinaryDecoder;
import io.rustcdc.flink.postgres.types.PgTextException;
import io.rustcdc.flink.postgres.types.TextDecoder;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes the text values of one table's rows, column by column, into the values of its {@link
 * RowType}, and where every column's type has one, their binary values ({@code COPY}'s binary format)
 * into the same values. The snapshot and the stream use the same decoder for the same column types. A
 * value that does not decode stops capture with the table, column and declared type, never the value.
 */
final class RowDecoder {
    private final TableId table;
    private final RowType rowType;
    private final List<RowShape.Column> columns;
    private final TextDecoder[] decoders;
    /** Each column's binary decoder; null when some column's type has none. */
    private final BinaryDecoder[] binaryDecoders;

    RowDecoder(TableId table, RowType rowType, List<RowShape.Column> columns, TextDecoder[] decoders) {
        this(table, rowType, columns, decoders, null);
    }

    /** {@code binaryDecoders} may hold nulls (types without a binary decoder): then no column is read in binary. */
    RowDecoder(TableId table, RowType rowType, List<RowShape.Column> columns, TextDecoder[] decoders,
            BinaryDecoder[] binaryDecoders) {
        if (decoders.length != rowType.size() || columns.size() != rowType.size()
                || (binaryDecoders != null && binaryDecoders.length != decoders.length)) {
            throw new IllegalArgumentException("One decoder and column per field of " + rowType);
        }
        this.table = table;
        this.rowType = rowType;
        this.columns = columns;
        this.decoders = decoders;
        this.binaryDecoders = binaryDecoders != null && !Arrays.asList(binaryDecoders).contains(null)
                ? binaryDecoders : null;
    }

    RowType rowType() {
        return rowType;
    }

    int size() {
        return decoders.length;
    }

    /** Whether every column's type has a binary decoder, so rows may be read in {@code COPY}'s binary format. */
    boolean binary() {
        return binaryDecoders != null;
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

    /** The value of column {@code i} from its binary form {@code data[from, to)}; only when {@link #binary()}. */
    Object decodeBinary(int i, byte[] data, int from, int to) {
        try {
            return binaryDecoders[i].decode(data, from, to);
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
