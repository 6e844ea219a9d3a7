package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * {@code Execute_load_query} events: a {@code LOAD DATA} statement logged as a statement (a session's {@code
 * binlog_format} STATEMENT or MIXED), its file's contents in the {@code Begin_load_query} and {@code Append_block}
 * events before it. Its body is a query event's with four fields more after the query's post-header (the file's id,
 * where its name begins and ends in the text, how duplicates are handled: 13 bytes), so it is read as that query.
 */
final class LoadQueries implements EventDataDeserializer<QueryEventData> {
    /** A query event's post-header: thread id, execution time, database length, error code, status length. */
    private static final int QUERY_POST_HEADER = 13;
    /** The file's id (4), the name's start (4) and end (4) in the text, the handling of duplicates (1). */
    private static final int LOAD_FIELDS = 13;

    private final EventDataDeserializer<QueryEventData> queries;

    LoadQueries(EventDataDeserializer<QueryEventData> queries) {
        this.queries = queries;
    }

    @Override
    public QueryEventData deserialize(ByteArrayInputStream in) throws IOException {
        byte[] data = in.read(in.available());
        if (data.length < QUERY_POST_HEADER + LOAD_FIELDS) {
            throw new IOException("An Execute_load_query event of " + data.length + " bytes, shorter than its "
                    + (QUERY_POST_HEADER + LOAD_FIELDS) + "-byte post-header");
        }
        byte[] query = new byte[data.length - LOAD_FIELDS];
        System.arraycopy(data, 0, query, 0, QUERY_POST_HEADER);
        System.arraycopy(data, QUERY_POST_HEADER + LOAD_FIELDS, query, QUERY_POST_HEADER,
                data.length - QUERY_POST_HEADER - LOAD_FIELDS);
        return queries.deserialize(new ByteArrayInputStream(query));
    }
}
