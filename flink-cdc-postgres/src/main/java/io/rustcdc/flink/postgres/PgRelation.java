package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * Fails when the replica identity ({@code setting}: pgoutput's 'd', 'n' or 'i'; 'f' logs whole rows) leaves
     * a primary-key column out: an update changing the key would come without the old key (as an update in
     * place) and a delete without the key, so the changelog could not say which row changed. Checked as each
     * RELATION message arrives (an identity changed while streaming), since the prerequisites' check before the
     * stream does not read an index's columns.
     */
    void requireKeyInIdentity(char setting, PostgresPosition position) {
        List<String> names = new ArrayList<>();
        shape.columns().forEach(c -> names.add(c.name()));
        List<String> missing = new ArrayList<>();
        for (String column : shape.primaryKey()) {
            if (!identity[names.indexOf(column)]) {
                missing.add(column);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        String qualified = PgPrerequisites.qualified(table);
        throw new CdcException(CdcException.Kind.PREREQUISITE, "REPLICA IDENTITY " + identityName(setting) + " of table "
                + table.qualifiedName() + " (relation " + Integer.toUnsignedString(oid) + ") leaves primary key column"
                + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing) + " out, as the relation pgoutput sent "
                + "at " + position + " says: an update that changes the key would come without its old key and a "
                + "delete without the key, so the changelog could not say which row changed. Run ALTER TABLE "
                + qualified + " REPLICA IDENTITY FULL; (or REPLICA IDENTITY DEFAULT), then restart the job without its "
                + "state with a new slot, since the changes logged meanwhile lack their keys.");
    }

    private static String identityName(char setting) {
        switch (setting) {
            case 'd':
                return "DEFAULT";
            case 'n':
                return "NOTHING";
            case 'i':
                return "USING INDEX";
            default:
                return "'" + setting + "'";
        }
    }
}
