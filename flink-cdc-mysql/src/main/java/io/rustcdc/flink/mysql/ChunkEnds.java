package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;

/**
 * Checks each chunk end the server finds against {@link MySqlKeyOrder}: it must come after the
 * previous one, since the server's {@code ORDER BY} found it among the keys after that one. An end
 * that does not shows that the server orders this table's key otherwise than the connector would
 * place changed keys in chunks (a MariaDB UUID column of a table created before MariaDB stored UUIDs
 * as it does now, which stores every UUID swapped), so the snapshot fails rather than match changes
 * to the wrong chunks. A table of few chunks, or whose ends happen to agree, may not show it.
 */
final class ChunkEnds {
    private ChunkEnds() {}

    static void requireAfter(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo) {
        if (after == null || upTo == null) {
            return;
        }
        RowType rowType = table.rowType();
        List<ValueType> types = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        for (String column : keyColumns) {
            int field = rowType.indexOf(column);
            types.add(rowType.type(field));
            collations.add(table.collation(field));
        }
        MySqlKeyOrder order = MySqlKeyOrder.INSTANCE;
        if (!order.orders(types, collations) || order.compare(types, collations, after, upTo) < 0) {
            return;
        }
        throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + table.table().qualifiedName()
                + " cannot be read in chunks of its key " + keyColumns + ": the server's ORDER BY "
                + "put a key at or before the previous chunk's end, so its order of these columns is not the one the "
                + "source places changed keys in chunks by. For a MariaDB UUID column, rebuild the table so that the "
                + "server stores its UUIDs as it does now (ALTER TABLE " + table.table().qualifiedName() + " FORCE; "
                + "tables created before MariaDB 10.9.8, 10.10.6, 10.11.5, 11.0.3, 11.1.2 or 11.2.1 store every UUID "
                + "swapped); or name another key column with "
                + "'scan.incremental.snapshot.chunk.key-column'.");
    }
}
