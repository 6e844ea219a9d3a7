package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.io.Serializable;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * The binlog's row events: each row of a table the filter matches becomes one change record,
 * decoded with the table map before it ({@link BinlogTables}), positioned inside its transaction;
 * the rows a restart inside the transaction delivered before are skipped.
 */
final class BinlogRows {
    private final MySqlSourceConfig config;
    private final TableFilter filter;
    private final BinlogTables tables;
    private final HeldShapes heldShapes;
    private final BinlogCursor cursor;
    private final StreamFailures failures;
    private final Map<Long, TableMapEventData> tableMaps = new HashMap<>();
    /**
     * The table of the last row event, reused while row events name the same table: each row's lookups by its table
     * (the handoff, the shapes, the transaction's counts) then find the table they stored by identity.
     */
    @Nullable private TableId lastTable;

    BinlogRows(MySqlSourceConfig config, TableFilter filter, BinlogTables tables, HeldShapes heldShapes,
            BinlogCursor cursor, StreamFailures failures) {
        this.config = config;
        this.filter = filter;
        this.tables = tables;
        this.heldShapes = heldShapes;
        this.cursor = cursor;
        this.failures = failures;
    }

    void tableMap(TableMapEventData map) {
        tableMaps.put(map.getTableId(), map);
    }

    /**
     * @param images the rows of an insert or a delete; null for an update
     * @param updates the rows of an update, before and after; null otherwise
     */
    void rows(EventHeaderV4 header, long tableId, Op op, @Nullable List<Serializable[]> images,
            @Nullable List<Map.Entry<Serializable[], Serializable[]>> updates) {
        long index = cursor.nextEvent();
        MySqlPosition transaction = cursor.transaction();
        if (transaction == null) {
            return;
        }
        TableMapEventData map = tableMaps.get(tableId);
        if (map == null) {
            throw new CdcException(CdcException.Kind.DECODE, "A row event at " + cursor.file() + ":"
                    + header.getPosition() + " names table id " + tableId
                    + " without a table map before it in its transaction.");
        }
        TableId table = tableOf(map);
        if (!filter.matches(table)) {
            return;
        }
        BinlogTables.Decoder decoder = tables.decoder(table, map);
        heldShapes.rowsRead(table);
        if (decoder.isSequence()) {
            return;
        }
        int count = images != null ? images.size() : updates.size();
        if (cursor.deliveredBefore(index)) {
            cursor.skipped(count); // delivered before the restart, and still counted in the events' index
            return;
        }
        if (cursor.preparedXa()) {
            throw failures.preparedXa(table, transaction);
        }
        Instant commitTime = Instant.ofEpochMilli(header.getTimestamp());
        int first = cursor.firstToDeliver(index);
        cursor.skipped(first);
        for (int r = first; r < count; r++) {
            MySqlPosition position = cursor.inTransaction(index, r + 1);
            SourceInfo source = SourceInfo.stream(config.flavor().sourceName(), position, commitTime);
            ChangeEvent.Builder event = ChangeEvent.builder(op, table, source).shape(decoder.shape())
                    .transaction(cursor.transactionInfo(cursor.nextChange()));
            if (op == Op.INSERT) {
                event.after(decoder.row(images.get(r)));
            } else if (op == Op.DELETE) {
                event.before(decoder.row(images.get(r)));
            } else {
                event.before(decoder.row(updates.get(r).getKey())).after(decoder.row(updates.get(r).getValue()));
            }
            cursor.deliver(StreamRecord.of(event.build(), position));
        }
    }

    private TableId tableOf(TableMapEventData map) {
        TableId last = lastTable;
        if (last == null || !last.table().equals(map.getTable()) || !last.database().equals(map.getDatabase())) {
            lastTable = TableId.of(map.getDatabase(), map.getDatabase(), map.getTable());
        }
        return lastTable;
    }
}
