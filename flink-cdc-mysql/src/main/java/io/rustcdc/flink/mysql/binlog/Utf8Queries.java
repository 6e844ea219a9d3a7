package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.QueryEventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Query events (DDL and transaction statements) with their database and text read as UTF-8, not in
 * the JVM's default character set. The text is in the issuing session's character set; UTF-8 is
 * what clients use nearly always, and names in DDL are what the stream reads from it.
 */
final class Utf8Queries implements EventDataDeserializer<QueryEventData> {
    private final QueryEventDataDeserializer queries = new QueryEventDataDeserializer();

    @Override
    public QueryEventData deserialize(ByteArrayInputStream in) throws IOException {
        QueryEventData query = queries.deserialize(new BytesAsChars(in));
        query.setDatabase(RawTableMaps.utf8(query.getDatabase()));
        query.setSql(RawTableMaps.utf8(query.getSql()));
        return query;
    }
}
