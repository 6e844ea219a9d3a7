package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.types.BinaryDecoder;
import io.rustcdc.flink.postgres.types.PgType;
import io.rustcdc.flink.postgres.types.TextDecoder;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.ArrayList;
import java.util.List;

/** A described table with its relation id and the PostgreSQL type of each of its columns, in column order. */
final class PgTable {
    final TableDescription description;
    /** Its {@code pg_class} oid: a table dropped and created again under its name has a new one. */
    final long relationId;
    final List<PgType> types;
    /** Whether it is a partitioned table (relkind {@code p}), else a plain one ({@code r}): see {@link #scanned}. */
    final boolean partitioned;

    PgTable(TableDescription description, long relationId, List<PgType> types, boolean partitioned) {
        this.description = description;
        this.relationId = relationId;
        this.types = List.copyOf(types);
        this.partitioned = partitioned;
    }

    /**
     * The table as a snapshot's queries read it, its own rows: a plain table with {@code ONLY}, which leaves
     * out the rows of the tables that inherit from it ({@code INHERITS}), as its stream does (pgoutput sends
     * their changes under their own names, also where a publication lists only the parent); a partitioned
     * table without it, its rows being its partitions' (sent under its name with {@code publish_via_partition_root}).
     */
    static String scanned(TableId table, boolean partitioned) {
        return (partitioned ? "" : "ONLY ") + PgPrerequisites.qualified(table);
    }

    /** A decoder of {@code columns}, in that order. */
    RowDecoder decoder(List<String> columns) {
        RowType all = description.rowType();
        List<RowShape.Column> shapeColumns = new ArrayList<>();
        List<io.rustcdc.flink.source.model.ValueType> valueTypes = new ArrayList<>();
        TextDecoder[] decoders = new TextDecoder[columns.size()];
        BinaryDecoder[] binaryDecoders = new BinaryDecoder[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            int field = all.indexOf(columns.get(i));
            if (field < 0) {
                throw new IllegalArgumentException("No column " + columns.get(i) + " in " + description.table());
            }
            shapeColumns.add(description.shape().columns().get(field));
            valueTypes.add(all.type(field));
            decoders[i] = types.get(field).decoder();
            binaryDecoders[i] = types.get(field).binaryDecoder();
        }
        return new RowDecoder(description.table(), RowType.of(columns, valueTypes), shapeColumns, decoders,
                binaryDecoders);
    }

    /** A decoder of every column. */
    RowDecoder decoder() {
        return decoder(description.rowType().names());
    }
}
