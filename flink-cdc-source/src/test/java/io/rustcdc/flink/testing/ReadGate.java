package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Native JSON that holds the snapshot at a chosen read: the read numbered {@link #holdAt} (and every
 * read after it) waits in the reader's task thread until the test moves {@code holdAt} on, so a test
 * can change a table between chunks of its snapshot at a moment it drew. Counts the snapshot reads
 * and the stream's events that reached it. The job runs in the test's JVM (a MiniCluster); one test
 * at a time; {@link #reset} before and after each.
 */
public final class ReadGate implements ChangeEventDeserializer<String> {
    private static final long serialVersionUID = 1L;
    /** The number of the first read that waits (1 is the first read); {@code Long.MAX_VALUE}: none. */
    public static volatile long holdAt = Long.MAX_VALUE;
    /** Snapshot reads that reached the gate. */
    public static final AtomicLong READS = new AtomicLong();
    /** Events other than snapshot reads that reached the gate (the stream's). */
    public static final AtomicLong STREAMED = new AtomicLong();
    private final ChangeEventDeserializer<String> json = ChangeEventDeserializer.json();

    /** Lets every event pass and sets the counts to zero. */
    public static void reset() {
        holdAt = Long.MAX_VALUE;
        READS.set(0);
        STREAMED.set(0);
    }

    @Override
    public void deserialize(ChangeEvent event, Collector<String> out) throws Exception {
        if (event.op() == Op.READ) {
            long n = READS.incrementAndGet();
            while (n >= holdAt) {
                Thread.sleep(10);
            }
        } else {
            STREAMED.incrementAndGet();
        }
        json.deserialize(event, out);
    }

    @Override
    public TypeInformation<String> producedType() {
        return json.producedType();
    }
}
