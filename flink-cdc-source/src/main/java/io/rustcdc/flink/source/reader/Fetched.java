package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.List;

/**
 * What the {@link ReaderWorker} hands the task thread through the {@link RecordQueue}: a chunk
 * arrives as batches of its rows, as they are read, then its end with its mark; the stream as
 * batches of records. An inline chunk belongs to a table added while the stream runs, read by the
 * stream's own worker between stream batches.
 */
sealed interface Fetched {

    /** The next rows of the chunk being read, in the order the connector read them. */
    record ChunkRows(List<ChangeEvent> rows, boolean inline) implements Fetched {}

    /** The end of the chunk being read: the chunk with its mark; no rows of it follow. */
    record ChunkEnd<M>(ChunkSplit<M> chunk, boolean inline) implements Fetched {}

    /** Records of the change stream, in stream order. */
    record StreamBatch<P>(List<StreamRecord<P>> records) implements Fetched {}
}
