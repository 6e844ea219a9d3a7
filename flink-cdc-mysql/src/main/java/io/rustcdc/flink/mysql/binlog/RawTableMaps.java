package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventMetadata;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.TableMapEventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.TableMapEventMetadataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;

/**
 * Table maps whose text does not depend on the JVM's default character set, which the client
 * decodes it with. Names (database, table, columns) are UTF-8, the server's system character set.
 * ENUM and SET labels are in their column's character set, which only the caller knows: they are
 * left as one char per byte (ISO-8859-1), for {@link #labelBytes} to give back exactly.
 */
@Internal
public final class RawTableMaps implements EventDataDeserializer<TableMapEventData> {
    private final TableMapEventDataDeserializer tableMaps = new TableMapEventDataDeserializer();

    RawTableMaps() {
        try {
            // the client reads the optional metadata from a stream of its own making; its reader is the hook
            Field metadata = TableMapEventDataDeserializer.class.getDeclaredField("metadataDeserializer");
            metadata.setAccessible(true);
            metadata.set(tableMaps, new TableMapEventMetadataDeserializer() {
                @Override
                public TableMapEventMetadata deserialize(ByteArrayInputStream in, int columns, byte[] types)
                        throws IOException {
                    return super.deserialize(new BytesAsChars(in), columns, types);
                }
            });
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("This mysql-binlog-connector-java has no table map metadata reader to "
                    + "replace; its text would depend on the JVM's default character set", e);
        }
    }

    @Override
    public TableMapEventData deserialize(ByteArrayInputStream in) throws IOException {
        TableMapEventData map = tableMaps.deserialize(new BytesAsChars(in));
        map.setDatabase(utf8(map.getDatabase()));
        map.setTable(utf8(map.getTable()));
        TableMapEventMetadata meta = map.getEventMetadata();
        if (meta != null && meta.getColumnNames() != null) {
            meta.setColumnNames(meta.getColumnNames().stream().map(RawTableMaps::utf8).collect(Collectors.toList()));
        }
        return map;
    }

    /** The bytes of an ENUM or SET label as the server wrote them, to decode in the column's character set. */
    public static byte[] labelBytes(String label) {
        return label.getBytes(StandardCharsets.ISO_8859_1);
    }

    static String utf8(String bytesAsChars) {
        return bytesAsChars == null ? null : new String(labelBytes(bytesAsChars), StandardCharsets.UTF_8);
    }
}
