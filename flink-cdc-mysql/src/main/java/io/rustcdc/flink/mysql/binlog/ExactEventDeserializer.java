package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.ColumnType;
import com.github.shyiko.mysql.binlog.event.deserialization.DeleteRowsEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.FormatDescriptionEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.GtidEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.MariadbGtidEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.MariadbGtidListEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.PreviousGtidSetDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.RotateEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.XAPrepareEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.XidEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventHeaderV4Deserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.NullEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.UpdateRowsEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.WriteRowsEventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * The binlog client's event deserializer for the events the stream reads, with row events read by
 * {@link ExactCells}; other events are skipped undecoded. Compressed events are read too: MariaDB's
 * ({@link MariaDbCompressedEvents}) as the plain events they stand for, Oracle MySQL's compressed
 * transactions ({@link CompressedTransactions}) into a payload whose events {@link
 * CompressedTransactions#expand} decodes by the same readers.
 */
final class ExactEventDeserializer {
    private ExactEventDeserializer() {}

    static EventDeserializer create() {
        Map<Long, TableMapEventData> tableMaps = new HashMap<>();
        Map<EventType, EventDataDeserializer> plain = new HashMap<>();
        plain.put(EventType.FORMAT_DESCRIPTION, new FormatDescriptionEventDataDeserializer());
        plain.put(EventType.ROTATE, new RotateEventDataDeserializer());
        plain.put(EventType.QUERY, new Utf8Queries());
        plain.put(EventType.EXECUTE_LOAD_QUERY, new LoadQueries(new Utf8Queries()));
        plain.put(EventType.TABLE_MAP, new RawTableMaps());
        plain.put(EventType.XID, new XidEventDataDeserializer());
        plain.put(EventType.XA_PREPARE, new XAPrepareEventDataDeserializer()); // ends an XA transaction's group
        plain.put(EventType.GTID, new GtidEventDataDeserializer());
        plain.put(EventType.PREVIOUS_GTIDS, new PreviousGtidSetDeserializer());
        plain.put(EventType.MARIADB_GTID, new MariadbGtidEventDataDeserializer());
        plain.put(EventType.MARIADB_GTID_LIST, new MariadbGtidListEventDataDeserializer());
        plain.put(EventType.WRITE_ROWS, new Writes(tableMaps));
        plain.put(EventType.EXT_WRITE_ROWS, new Writes(tableMaps).setMayContainExtraInformation(true));
        plain.put(EventType.UPDATE_ROWS, new Updates(tableMaps));
        plain.put(EventType.EXT_UPDATE_ROWS, new Updates(tableMaps).setMayContainExtraInformation(true));
        plain.put(EventType.DELETE_ROWS, new Deletes(tableMaps));
        plain.put(EventType.EXT_DELETE_ROWS, new Deletes(tableMaps).setMayContainExtraInformation(true));

        // Oracle MySQL: the events inside a compressed transaction, read by the same readers into the same
        // table maps; they carry no checksum of their own (a new EventDeserializer expects none)
        EventDeserializer inner = new EventDeserializer(new EventHeaderV4Deserializer(), new NullEventDataDeserializer(),
                new HashMap<>(plain), tableMaps);

        // MariaDB: compressed query and row events take their plain type in the header and are decompressed
        // before the plain reader reads them
        MariaDbCompressedEvents headers = new MariaDbCompressedEvents();
        Map<EventType, EventDataDeserializer> byType = new HashMap<>(plain);
        byType.put(EventType.QUERY, headers.query(plain.get(EventType.QUERY)));
        byType.put(EventType.WRITE_ROWS, headers.rows(plain.get(EventType.WRITE_ROWS), false, false));
        byType.put(EventType.EXT_WRITE_ROWS, headers.rows(plain.get(EventType.EXT_WRITE_ROWS), true, false));
        byType.put(EventType.UPDATE_ROWS, headers.rows(plain.get(EventType.UPDATE_ROWS), false, true));
        byType.put(EventType.EXT_UPDATE_ROWS, headers.rows(plain.get(EventType.EXT_UPDATE_ROWS), true, true));
        byType.put(EventType.DELETE_ROWS, headers.rows(plain.get(EventType.DELETE_ROWS), false, false));
        byType.put(EventType.EXT_DELETE_ROWS, headers.rows(plain.get(EventType.EXT_DELETE_ROWS), true, false));
        byType.put(EventType.TRANSACTION_PAYLOAD, new CompressedTransactions(inner));
        byType.put(EventType.GTID, headers.gtids(plain.get(EventType.GTID)));
        return new EventDeserializer(headers, new NullEventDataDeserializer(), byType, tableMaps);
    }

    private static final class Writes extends WriteRowsEventDataDeserializer {
        Writes(Map<Long, TableMapEventData> tableMaps) {
            super(tableMaps);
        }

        @Override
        protected Serializable deserializeCell(ColumnType type, int meta, int length, ByteArrayInputStream in)
                throws IOException {
            Serializable exact = ExactCells.read(type, meta, length, in);
            return exact != null ? exact : super.deserializeCell(type, meta, length, in);
        }
    }

    private static final class Updates extends UpdateRowsEventDataDeserializer {
        Updates(Map<Long, TableMapEventData> tableMaps) {
            super(tableMaps);
        }

        @Override
        protected Serializable deserializeCell(ColumnType type, int meta, int length, ByteArrayInputStream in)
                throws IOException {
            Serializable exact = ExactCells.read(type, meta, length, in);
            return exact != null ? exact : super.deserializeCell(type, meta, length, in);
        }
    }

    private static final class Deletes extends DeleteRowsEventDataDeserializer {
        Deletes(Map<Long, TableMapEventData> tableMaps) {
            super(tableMaps);
        }

        @Override
        protected Serializable deserializeCell(ColumnType type, int meta, int length, ByteArrayInputStream in)
                throws IOException {
            Serializable exact = ExactCells.read(type, meta, length, in);
            return exact != null ? exact : super.deserializeCell(type, meta, length, in);
        }
    }
}
