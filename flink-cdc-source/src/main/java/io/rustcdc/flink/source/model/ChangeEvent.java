package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One change captured from a database: what happened ({@link Op}) to which table, the row before
 * and after, the row's shape, where it came from and its transaction. Immutable.
 *
 * <p>Fields the source did not supply (an unchanged TOAST value) are absent from {@link #after()}
 * and listed by {@link #unchangedColumns()}; they are never null. {@link #shape()} is null when
 * the shape is unknown, which is not "no columns".
 *
 * <pre>{@code
 * ChangeEvent e = ChangeEvent.builder(Op.INSERT, table, source).after(row).shape(shape).build();
 * }</pre>
 */
@PublicEvolving
public final class ChangeEvent implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Op op;
    private final TableId table;
    @Nullable private final Row before;
    @Nullable private final Row after;
    @Nullable private final RowShape shape;
    private final SourceInfo source;
    @Nullable private final TransactionInfo transaction;
    private final List<ShapeChange> shapeChanges;

    private ChangeEvent(Builder b) {
        this.op = b.op;
        this.table = b.table;
        this.before = b.before;
        this.after = b.after;
        this.shape = b.shape;
        this.source = b.source;
        this.transaction = b.transaction;
        this.shapeChanges = b.shapeChanges;
    }

    public static Builder builder(Op op, TableId table, SourceInfo source) {
        return new Builder(op, table, source);
    }

    public Op op() {
        return op;
    }

    public TableId table() {
        return table;
    }

    /** The row before the change (updates and deletes, where the source supplies it), else null. */
    @Nullable
    public Row before() {
        return before;
    }

    /** The row after the change (reads, inserts, updates, messages, schema changes), else null. */
    @Nullable
    public Row after() {
        return after;
    }

    /** The names of the columns the source did not supply in {@link #after()}. */
    public List<String> unchangedColumns() {
        return after == null ? List.of() : after.absentFields();
    }

    /** The row's shape, or null when it is unknown. */
    @Nullable
    public RowShape shape() {
        return shape;
    }

    public SourceInfo source() {
        return source;
    }

    /** The event's transaction, or null (snapshot rows, non-transactional messages). */
    @Nullable
    public TransactionInfo transaction() {
        return transaction;
    }

    /**
     * What a {@link Op#SCHEMA_CHANGE} event changed, classified ({@link ShapeChange}); empty for other
     * events, and for a schema change the source did not classify (then {@link #shape()} tells the
     * shape after it, where known).
     */
    public List<ShapeChange> shapeChanges() {
        return shapeChanges;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ChangeEvent)) {
            return false;
        }
        ChangeEvent e = (ChangeEvent) o;
        return op == e.op && table.equals(e.table) && Objects.equals(before, e.before)
                && Objects.equals(after, e.after) && Objects.equals(shape, e.shape)
                && source.equals(e.source) && Objects.equals(transaction, e.transaction)
                && shapeChanges.equals(e.shapeChanges);
    }

    @Override
    public int hashCode() {
        return Objects.hash(op, table, before, after, shape, source, transaction, shapeChanges);
    }

    /** No row values: they may be confidential and never go to a log. */
    @Override
    public String toString() {
        return "ChangeEvent{" + op.wireName() + " " + table + " " + source
                + (transaction == null ? "" : " " + transaction)
                + (shape == null ? "" : " shape=" + shape.id())
                + (shapeChanges.isEmpty() ? "" : " " + shapeChanges) + "}";
    }

    /** Builds one {@link ChangeEvent}; not thread-safe. */
    @PublicEvolving
    public static final class Builder {
        private final Op op;
        private final TableId table;
        private final SourceInfo source;
        private Row before;
        private Row after;
        private RowShape shape;
        private TransactionInfo transaction;
        private List<ShapeChange> shapeChanges = List.of();

        private Builder(Op op, TableId table, SourceInfo source) {
            this.op = Objects.requireNonNull(op, "op");
            this.table = Objects.requireNonNull(table, "table");
            this.source = Objects.requireNonNull(source, "source");
        }

        public Builder before(@Nullable Row row) {
            this.before = row;
            return this;
        }

        public Builder after(@Nullable Row row) {
            this.after = row;
            return this;
        }

        public Builder shape(@Nullable RowShape shape) {
            this.shape = shape;
            return this;
        }

        public Builder transaction(@Nullable TransactionInfo transaction) {
            this.transaction = transaction;
            return this;
        }

        /** The classified changes of a schema change event (none by default). */
        public Builder shapeChanges(List<ShapeChange> changes) {
            this.shapeChanges = List.copyOf(changes);
            return this;
        }

        public ChangeEvent build() {
            return new ChangeEvent(this);
        }
    }
}
