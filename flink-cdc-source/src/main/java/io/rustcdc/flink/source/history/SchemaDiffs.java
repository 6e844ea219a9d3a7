package io.rustcdc.flink.source.history;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import java.util.ArrayList;
import java.util.List;

/** Applies an ALTER TABLE diff to a shape, refusing any operation that does not fit it. */
final class SchemaDiffs {
    private SchemaDiffs() {}

    static RowShape apply(RowShape shape, SchemaChange change) {
        List<RowShape.Column> columns = new ArrayList<>(shape.columns());
        List<String> key = new ArrayList<>(shape.primaryKey());
        for (ColumnChange op : change.diff()) {
            int at = indexOf(columns, op.name());
            switch (op.type()) {
                case ADD:
                    if (at >= 0) {
                        throw misfit(change, op, "the column already exists");
                    }
                    if (op.position() == ColumnChange.AT_END) {
                        columns.add(op.column());
                    } else if (op.position() <= columns.size()) {
                        columns.add(op.position(), op.column());
                    } else {
                        throw misfit(change, op, "the table has only " + columns.size() + " columns");
                    }
                    break;
                case DROP:
                    requirePresent(change, op, at);
                    columns.remove(at);
                    key.remove(op.name());
                    break;
                case MODIFY:
                    requirePresent(change, op, at);
                    columns.set(at, op.column());
                    break;
                case RENAME:
                    requirePresent(change, op, at);
                    if (indexOf(columns, op.newName()) >= 0) {
                        throw misfit(change, op, "a column " + op.newName() + " already exists");
                    }
                    RowShape.Column old = columns.get(at);
                    columns.set(at, RowShape.Column.of(op.newName(), old.dataType(), old.nullable()));
                    key.replaceAll(k -> k.equals(op.name()) ? op.newName() : k);
                    break;
                default:
                    throw new IllegalStateException("Unknown column change " + op.type());
            }
        }
        return RowShape.of(shape.schema(), shape.table(), columns, key);
    }

    private static int indexOf(List<RowShape.Column> columns, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static void requirePresent(SchemaChange change, ColumnChange op, int at) {
        if (at < 0) {
            throw misfit(change, op, "no such column");
        }
    }

    private static CdcException misfit(SchemaChange change, ColumnChange op, String why) {
        return new CdcException(CdcException.Kind.SCHEMA_HISTORY, "Cannot apply " + op + " of '" + change.statement()
                + "' to " + change.table() + " in the schema history: " + why
                + ". The history is left unchanged; a statement replayed without its identity causes this.");
    }
}
