package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.spi.ChunkKeyChanges;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A chunk key must keep the order its table's chunks were planned in: a key column's collation or type changed while
 * the table was snapshotted ({@code MODIFY id VARCHAR(20) COLLATE utf8mb4_bin}, a conversion to another character
 * set, {@code MODIFY id BIGINT} of a text key) orders the chunk ends otherwise, so that the chunks' ranges would
 * leave rows out or read them twice, and the handoff would place changed keys in the wrong chunks. Each chunk end
 * planned compares the key's order then with the description its planner read first, and each chunk's read, in its
 * open snapshot, with the description the reader holds, which the source compares with the chunk's planned key
 * ({@link io.rustcdc.flink.source.split.ChunkKey#requireOrderOf}). A type's length, precision or display width
 * ({@code VARCHAR(20)} to {@code VARCHAR(40)}), an integer's width and signedness keep the order; an ENUM's or SET's
 * labels do not (they order by their index).
 */
final class MySqlChunkKey {
    private static final Set<String> INTEGERS = Set.of("tinyint", "smallint", "mediumint", "int", "integer", "bigint");
    private static final String NO_COLUMN = "no column";

    private MySqlChunkKey() {}

    /**
     * @param now the table as the catalogue describes it now
     * @throws CdcException of kind STATE when a key column orders otherwise in {@code now} than in {@code planned}
     */
    static void requireSameOrder(TableDescription planned, TableDescription now, List<String> keyColumns) {
        List<String> changes = new ArrayList<>();
        for (String column : keyColumns) {
            String before = order(planned, column);
            String after = order(now, column);
            if (!before.equals(after)) {
                changes.add(column + " from " + before + " to " + after);
            }
        }
        if (!changes.isEmpty()) {
            throw ChunkKeyChanges.planned(planned.table(), changes);
        }
    }

    /**
     * What orders a column's values: its type without length, precision, width or signedness (every integer type as
     * one), with its labels for ENUM and SET, and its collation as the description names it (which names a CHAR's and
     * a TEXT's type too); "no column" when the table has none of that name.
     */
    static String order(TableDescription table, String column) {
        int field = table.rowType().indexOf(column);
        if (field < 0) {
            return NO_COLUMN;
        }
        String declared = table.shape().columns().get(field).dataType().toLowerCase(Locale.ROOT).trim();
        String collation = table.collation(field);
        return family(declared) + (collation == null ? "" : " collate " + collation);
    }

    private static String family(String declared) {
        int end = 0;
        while (end < declared.length() && Character.isLetterOrDigit(declared.charAt(end))) {
            end++;
        }
        String base = declared.substring(0, end);
        if (base.equals("enum") || base.equals("set")) {
            int labelsEnd = declared.lastIndexOf(')');
            return labelsEnd < 0 ? declared : declared.substring(0, labelsEnd + 1);
        }
        return INTEGERS.contains(base) ? "integer" : base;
    }
}
