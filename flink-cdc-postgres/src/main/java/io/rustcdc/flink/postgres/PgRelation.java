package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import javax.annotation.Nullable;

/**
 * A table as the latest pgoutput RELATION message described it: column names and types from the
 * message, nullability and primary key from the catalogue when the message arrived, which columns
 * form the replica identity, the columns' types, and the decoder of its rows.
 */
final class PgRelation {
    final int oid;
    final TableId table;
    final RowShape shape;
    final boolean[] identity;
    /** Each column's type OID and modifier, as the message gave them. */
    final int[] typeOids;
    final int[] typmods;
    /** Each column's attribute number, when the catalogue confirmed them as the message arrived; else null. */
    @Nullable final int[] attributeNumbers;
    final RowDecoder decoder;
    /** Whether the stream emits this table's events (the table filter selects it). */
    final boolean captured;

    PgRelation(int oid, TableId table, RowShape shape, boolean[] identity, int[] typeOids, int[] typmods,
            @Nullable int[] attributeNumbers, RowDecoder decoder, boolean captured) {
        this.oid = oid;
        this.table = table;
        this.shape = shape;
        this.identity = identity;
        this.typeOids = typeOids;
        this.typmods = typmods;
        this.attributeNumbers = attributeNumbers;
        this.decoder = decoder;
        this.captured = captured;
    }

    /** Whether {@code other} describes the same columns (a RELATION resent without a change). */
    boolean sameColumns(PgRelation other) {
        return shape.equals(other.shape);
    }
}
