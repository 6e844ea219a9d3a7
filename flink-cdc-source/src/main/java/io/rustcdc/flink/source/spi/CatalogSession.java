package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import java.util.List;
import java.util.function.Consumer;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One ordinary connection to the database, for everything but the change stream. Not
 * thread-safe; close it when done.
 */
@PublicEvolving
public interface CatalogSession<P, M> extends AutoCloseable {

    /**
     * Fails loud, naming the table, what is missing and the statement that fixes it, when
     * {@code tables} cannot be snapshotted (privileges).
     */
    void checkSnapshotPrerequisites(List<TableId> tables);

    /**
     * Makes the database ready to stream changes of {@code tables} and returns the position the
     * stream must start at to miss nothing from now on. Checks every server setting and grant the
     * stream needs, failing loud with the setting, the value found and the fix; creates what the
     * configuration allows it to create (saying so in the log), and nothing else.
     *
     * @param fullBeforeImages whether updates and deletes must carry whole old rows
     */
    P prepareStream(List<TableId> tables, boolean fullBeforeImages);

    /** The tables the source may capture that {@code filter} selects, in a stable order. */
    List<TableId> discoverTables(TableFilter filter);

    /** The table's shape, value types and chunk key, read from the catalogue now. */
    TableDescription describe(TableId table);

    /**
     * The last key, in the database's order of {@code keyColumns}, of the chunk of {@code
     * chunkSize} rows that follows {@code after} (the table's start when null); null when fewer
     * rows remain, so that the rest is the last chunk. Key values are typed as the columns' values.
     */
    @Nullable
    Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after, int chunkSize);

    /**
     * Reads the rows whose {@code keyColumns} lie in ({@code after}, {@code upTo}] (open ends when
     * null; both null reads the whole table) as {@link io.rustcdc.flink.source.model.Op#READ}
     * events, streaming them to {@code out} in bounded memory, and returns what the chunk reflects.
     *
     * <p>The reader emits the rows as they arrive, holding a bounded number: {@code out} blocks while
     * Flink's output is backpressured, so backpressure reaches the read. When the reader closes,
     * {@code out} throws an unchecked exception; let it propagate (ending the read). The returned
     * mark must describe every row handed to {@code out}; a read that throws after some rows fails
     * the reader's task, and the chunk is read again after the restore.
     */
    M readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after, @Nullable Object[] upTo,
            Consumer<ChangeEvent> out);

    /**
     * Bytes of chunk rows ({@link #readChunk}) this session has read from the database since it opened,
     * as the connector counts them (its documentation says what it counts); never decreasing. The reader
     * adds what it grew by to Flink's {@code numBytesIn}, also from inside {@code readChunk}'s consumer,
     * as rows go on. Called by the thread that reads; 0 when the connector counts nothing.
     */
    default long bytesRead() {
        return 0;
    }

    /** The change-log position now: a stream started here misses nothing committed later. */
    P currentPosition();

    @Override
    void close();
}
