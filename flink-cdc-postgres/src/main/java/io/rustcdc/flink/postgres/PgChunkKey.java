package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.spi.ChunkKeyChanges;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * The order a chunk reads its key in must be the one its table's chunks were planned in: a key column's type or
 * collation changed while the snapshot was read ({@code ALTER COLUMN ... TYPE text}, {@code ... COLLATE "C"})
 * orders the chunk ends the planner found otherwise, so that the chunks' ranges would leave rows out or read them
 * twice. Each chunk end planned compares its key columns' types and collations, as the catalogue shows them then,
 * with the description of the table its planner read first, and fails ({@code STATE}) when one orders otherwise;
 * and each chunk's mark holds the order it read its key in ({@link #keyOrder}), which the source compares across the
 * table's chunks ({@link PostgresConnector#tableIdentity}). A type's length, precision or scale ({@code varchar(10)}
 * to {@code varchar(20)}), an integer's width and {@code varchar} to {@code text} keep the order. A change after the
 * last chunk end was planned and before any chunk of the table was read is found by each chunk's read, which checks
 * that its bounds are still in order ({@code PostgresSession#requireOrderedBounds}).
 */
final class PgChunkKey {
    /** A type modifier in a declared type: {@code (20)}, {@code (10,2)}. */
    private static final Pattern MODIFIER = Pattern.compile("\\(\\d+(,\\s*-?\\d+)?\\)");
    /** Declared types whose values one order compares, by the type that stands for them. */
    private static final Map<String, String> SAME_ORDER = Map.of("smallint", "integer", "bigint", "integer",
            "character varying", "text");

    private static final String NO_COLUMN = "no column";

    private PgChunkKey() {}

    /**
     * A key column as the catalogue shows it now: its declared type and collation as the checks compare them ({@link
     * #ordering}), and its collation as SQL names it (null: none).
     */
    record Column(String ordering, @Nullable String sqlCollation) {}

    /**
     * @param now the key columns now ({@link PgCatalog#keyColumns}; a column missing: gone)
     * @throws CdcException of kind STATE when a key column's type or collation orders otherwise than {@code planned}'s
     */
    static void requireSameOrder(TableDescription planned, Map<String, Column> now, List<String> keyColumns) {
        List<String> changes = new ArrayList<>();
        for (String column : keyColumns) {
            String before = ordering(planned, column);
            String after = now.containsKey(column) ? now.get(column).ordering() : NO_COLUMN;
            if (!order(before).equals(order(after))) {
                changes.add(column + " from " + before + " to " + after);
            }
        }
        if (!changes.isEmpty()) {
            throw ChunkKeyChanges.planned(planned.table(), changes);
        }
    }

    /**
     * @param now the table as a chunk's snapshot describes it
     * @throws CdcException of kind STATE when a key column's type or collation orders otherwise than {@code planned}'s,
     *     or a key column {@code planned} kept from NULL may hold it now
     */
    static void requireSameOrder(TableDescription planned, TableDescription now, List<String> keyColumns) {
        List<String> nullable = ChunkKeyChanges.madeNullable(now, keyColumns);
        if (ChunkKeyChanges.madeNullable(planned, keyColumns).isEmpty() && !nullable.isEmpty()) {
            throw ChunkKeyChanges.planned(planned.table(), nullable); // a range of keys reads no row whose key is NULL
        }
        Map<String, Column> columns = new HashMap<>();
        for (String column : keyColumns) {
            if (now.rowType().indexOf(column) >= 0) {
                columns.put(column, new Column(ordering(now, column), null));
            }
        }
        requireSameOrder(planned, columns, keyColumns);
    }

    /** The order {@code table}'s {@code keyColumns} are read in, for a chunk's mark. */
    static String keyOrder(TableDescription table, List<String> keyColumns) {
        List<String> orders = new ArrayList<>();
        for (String column : keyColumns) {
            orders.add(column + " " + order(ordering(table, column)));
        }
        return String.join(", ", orders);
    }

    /** The column's declared type and its collation, if any; "no column" when the table has none of that name. */
    private static String ordering(TableDescription table, String column) {
        int field = table.rowType().indexOf(column);
        if (field < 0) {
            return NO_COLUMN;
        }
        RowShape.Column declared = table.shape().columns().get(field);
        return ordering(declared.dataType(), table.collation(field));
    }

    /** A column's declared type and its collation (null: none), as the checks compare and name them. */
    static String ordering(String declaredType, @Nullable String collation) {
        return declaredType + (collation == null ? "" : " (collation " + collation + ")");
    }

    /** Whether a column's {@link #ordering} names {@code collation}. */
    static boolean collatedIn(String ordering, String collation) {
        return ordering.endsWith(" (collation " + collation + ")");
    }

    /** What orders a column's values: its type without modifiers, standing for its order's types, and its collation. */
    static String order(String ordering) {
        String type = MODIFIER.matcher(ordering).replaceAll("").replaceAll("\\s+", " ").trim();
        for (Map.Entry<String, String> same : SAME_ORDER.entrySet()) {
            if (type.equals(same.getKey()) || type.startsWith(same.getKey() + " (collation ")) {
                return same.getValue() + type.substring(same.getKey().length());
            }
        }
        return type;
    }
}
