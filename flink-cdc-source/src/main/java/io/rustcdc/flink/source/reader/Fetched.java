package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.util.List;
import javax.annotation.Nullable;

/**
 * What the {@link ReaderWorker} hands the task thread through the {@link RecordQueue}: a chunk
 * arrives as batches of its rows, as they are read, then its end with its mark; the stream as
 * batches of records. An inline chunk belongs to a table added while the stream runs, read by the
 * stream's own worker between stream batches.
 */
sealed interface Fetched {

    /** The next rows of the chunk being read, in the order the connector read them. */
    record ChunkRows(List<ChangeEvent> rows, boolean inline) implements Fetched {}

    /**
     * The end of the chunk being read: the chunk with its mark; no rows of it follow. An inline chunk
     * names the plan it was read from and the plan of the rest of its table (null: none left), the
     * same objects the worker holds, so the task thread can tell a chunk of a read it stopped.
     */
    record ChunkEnd<M>(ChunkSplit<M> chunk, boolean inline, @Nullable TablePlan from, @Nullable TablePlan next)
            implements Fetched {
        ChunkEnd(ChunkSplit<M> chunk, boolean inline) {
            this(chunk, inline, null, null);
        }
    }

    /**
     * The read of a table added while the stream runs ended at a chunk on which its requested row filter
     * failed ({@code serverMessage}); rows of the chunk read before may have come; no end of it follows.
     * {@code plan} is the worker's, as in {@link ChunkEnd}.
     */
    record ChunkFailed(TablePlan plan, String serverMessage) implements Fetched {}

    /** Records of the change stream, in stream order. */
    record StreamBatch<P>(List<StreamRecord<P>> records) implements Fetched {}
}
