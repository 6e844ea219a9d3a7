package io.rustcdc.flink.testing;

import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
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

    /**
     * Whether every task of {@code job}'s current attempt runs, which a task does once its operators opened: only
     * then may a test fail the JobManager over. Flink's collect sink closed before it opened throws a
     * NullPointerException in its task's exception handler (its buffer lock is still null, FLINK-39330), which Flink
     * takes as fatal: the MiniCluster's TaskManager terminates and the restarted job waits for slots for good. A
     * JobMaster being started (right after the submission, or after a failover until it restored the job) answers
     * with a graph in state INITIALIZING and no tasks at all: not running (until 2026-12-06 that counted as every
     * task running, so a second failover could come while the first one's tasks were being deployed).
     */
    public static boolean tasksRunning(MiniCluster cluster, JobID job) {
        try {
            AccessExecutionGraph graph = cluster.getExecutionGraph(job).get(10, TimeUnit.SECONDS);
            if (graph.getState() != JobStatus.RUNNING) {
                return false; // a JobMaster being started (after submission, after a failover) answers with no tasks
            }
            boolean any = false;
            for (AccessExecutionVertex task : graph.getAllExecutionVertices()) {
                if (task.getExecutionState() != ExecutionState.RUNNING) {
                    return false;
                }
                any = true;
            }
            return any;
        } catch (ExecutionException | TimeoutException noLeaderYet) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
