package io.rustcdc.flink.testing;

import java.util.UUID;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.CloseableIterator;

/**
 * Flink's collect sink for a job that may be restored from another job's savepoint. The collect
 * sink keeps the records it has not handed out yet in its state, and its operator id is derived
 * from the job's shape: a job restored from a savepoint of one of the same shape restores that
 * sink's records and hands them out again (Flink 1.20 does; the consistency suite saw them as
 * rows read twice). A pass-through operator with a uid of its own per job gives the sink another
 * id, so the restored job's sink starts empty; such a job restores with unclaimed state allowed.
 */
public final class FreshCollect {
    private FreshCollect() {}

    public static <T> CloseableIterator<T> collectAsync(DataStream<T> stream) {
        String uid = "collect-" + UUID.randomUUID();
        return stream.map(r -> r, stream.getType()).uid(uid).name("to the collect sink").collectAsync();
    }
}
