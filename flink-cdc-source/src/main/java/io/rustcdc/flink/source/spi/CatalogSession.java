package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
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
     * The end, in the database's order of {@code keyColumns}, of the chunk that follows {@code after}
     * (the table's start when null): the last key of the next {@code chunkSize} rows, or a key value
     * such that the chunk holds at most {@code chunkSize} rows and at least one when planned ({@link
     * DenseKeyChunks}: it need not be a row's key); null when the rest is to be the last chunk (fewer
     * rows remain, or, computed, at most {@code chunkSize}). Key values are typed as the columns' values.
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
     * {@link #nextChunkEnd}, counting only the rows that satisfy {@code rowFilter} (null: every row):
     * the chunk's last key among them. Chunks planned so still cover the whole key space; they only hold
     * about {@code chunkSize} rows each of what {@link #readChunk(TableDescription, List, Object[], Object[],
     * String, Consumer)} delivers.
     *
     * <p>A row filter is a raw SQL condition on the table's columns, in the database's dialect, that the
     * connector adds to its query as {@code AND (<condition>)}. It is trusted input, from the job's
     * configuration or its operator: never built from user data, and not a security boundary.
     *
     * @throws io.rustcdc.flink.source.CdcException (configuration) when the connector has no row filters
     */
    @Nullable
    default Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            int chunkSize, @Nullable String rowFilter) {
        if (rowFilter == null) {
            return nextChunkEnd(table, keyColumns, after, chunkSize);
        }
        throw RowFilters.unsupported(table.table());
    }

    /**
     * {@link #readChunk(TableDescription, List, Object[], Object[], Consumer)} of only the rows that also
     * satisfy {@code rowFilter} (null: every row); see {@link #nextChunkEnd(TableDescription, List,
     * Object[], int, String)} for what a row filter is. The mark is the same as without a filter.
     */
    default M readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        if (rowFilter == null) {
            return readChunk(table, keyColumns, after, upTo, out);
        }
        throw RowFilters.unsupported(table.table());
    }

    /**
     * Asks the database whether it accepts {@code rowFilter} as a condition on {@code table}'s rows,
     * reading no row (for example {@code SELECT ... WHERE (<condition>) LIMIT 0}).
     *
     * @return null when it does; the server's message when it rejects it
     * @throws io.rustcdc.flink.source.CdcException (connection) when the question could not be asked;
     *     (configuration) when the connector has no row filters
     */
    @Nullable
    default String rowFilterProblem(TableDescription table, String rowFilter) {
        throw RowFilters.unsupported(table.table());
    }

    /**
     * Why the old rows of {@code table}'s updates and deletes in the change stream may lack a column of
     * {@code keyColumns}, its chunk key, with the database's remedy (the database logs only some columns of
     * old rows, say); null when they always carry them. The handoff from a table's snapshot to its stream
     * places each update and delete among the chunks by its old row's chunk key.
     *
     * @throws io.rustcdc.flink.source.CdcException (connection) when the question could not be asked
     */
    @Nullable
    default String keyMissingFromOldRows(TableId table, List<String> keyColumns) {
        return null;
    }

    /**
     * Bytes of chunk rows ({@link #readChunk}) this session has read from the database since it opened,
     * as the connector counts them (its documentation says what it counts); never decreasing. The reader
     * adds what it grew by to Flink's {@code numBytesIn}, also from inside {@code readChunk}'s consumer,
     * as rows go on. Called by the thread that reads; 0 when the connector counts nothing.
     */
    default long bytesRead() {
        return 0;
    }

    /**
     * Places {@code keys} among {@code bounds} by the database's own ascending order of {@code table}'s
     * {@code keyColumns} (their collations included), in one query: for each key, how many bounds sort
     * strictly before it (a key the order holds equal to a bound does not follow it). With the chunk ends
     * of a table as {@code bounds}, that is the index of the chunk holding the key. {@code bounds} are in
     * that order already (the database found them); {@code keyTypes} are the columns' value types; no
     * value is null. Connectors whose {@link KeyOrder#placedByServer} is true for some column implement it.
     * {@code keyCollations} are the columns' collations as the chunks were planned in them (as the connector's
     * descriptions name them; null entries for none): a column whose collation changed since (the stream may
     * still hand off from chunks read before the change) is placed in the planned one where the database can,
     * and fails the source where it cannot.
     *
     * @throws CdcException (configuration) when the connector places no keys; (state) when a key column's
     *     collation changed and the database cannot place in the planned one
     */
    default int[] placeKeys(TableId table, List<String> keyColumns, List<ValueType> keyTypes, List<String> keyCollations,
            List<Object[]> bounds, List<Object[]> keys) {
        throw new CdcException(CdcException.Kind.CONFIGURATION,
                "The connector cannot place keys of " + table + " " + keyColumns + " among chunk bounds; name a key column "
                + "the connector orders with the chunk key option");
    }

    /** The change-log position now: a stream started here misses nothing committed later. */
    P currentPosition();

    @Override
    void close();
}
