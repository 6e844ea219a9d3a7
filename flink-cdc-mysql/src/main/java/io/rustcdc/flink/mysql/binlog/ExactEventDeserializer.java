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
 * {@link ExactCells}; other events are skipped undecoded.
 */
final class ExactEventDeserializer {
    private ExactEventDeserializer() {}

    static EventDeserializer create() {
        Map<Long, TableMapEventData> tableMaps = new HashMap<>();
        Map<EventType, EventDataDeserializer> byType = new HashMap<>();
        byType.put(EventType.FORMAT_DESCRIPTION, new FormatDescriptionEventDataDeserializer());
        byType.put(EventType.ROTATE, new RotateEventDataDeserializer());
        byType.put(EventType.QUERY, new Utf8Queries());
        byType.put(EventType.TABLE_MAP, new RawTableMaps());
        byType.put(EventType.XID, new XidEventDataDeserializer());
        byType.put(EventType.GTID, new GtidEventDataDeserializer());
        byType.put(EventType.PREVIOUS_GTIDS, new PreviousGtidSetDeserializer());
        byType.put(EventType.MARIADB_GTID, new MariadbGtidEventDataDeserializer());
        byType.put(EventType.MARIADB_GTID_LIST, new MariadbGtidListEventDataDeserializer());
        byType.put(EventType.WRITE_ROWS, new Writes(tableMaps));
        byType.put(EventType.EXT_WRITE_ROWS, new Writes(tableMaps).setMayContainExtraInformation(true));
        byType.put(EventType.UPDATE_ROWS, new Updates(tableMaps));
        byType.put(EventType.EXT_UPDATE_ROWS, new Updates(tableMaps).setMayContainExtraInformation(true));
        byType.put(EventType.DELETE_ROWS, new Deletes(tableMaps));
        byType.put(EventType.EXT_DELETE_ROWS, new Deletes(tableMaps).setMayContainExtraInformation(true));
        return new EventDeserializer(new EventHeaderV4Deserializer(), new NullEventDataDeserializer(), byType, tableMaps);
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
