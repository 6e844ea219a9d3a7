package io.rustcdc.flink.testing.compat;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.time.Time;
import org.apache.flink.runtime.dispatcher.DispatcherGateway;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.scheduler.ExecutionGraphInfo;

/**
 * A MiniCluster job's exception history, on Flink 1.20, whose MiniCluster has no public
 * {@code getExecutionGraphInfo}: asked of its dispatcher (Flink 2.x's twin is in {@code src/test/flink-2}).
 */
public final class JobFailures {
    private JobFailures() {}

    /** How many failures Flink has handled for the job: each entry of its exception history is one. */
    public static int count(MiniCluster cluster, JobID job) throws Exception {
        Method gateway = MiniCluster.class.getDeclaredMethod("getDispatcherGatewayFuture");
        gateway.setAccessible(true);
        DispatcherGateway dispatcher = ((CompletableFuture<?>) gateway.invoke(cluster)).thenApply(DispatcherGateway.class::cast)
                .get(10, TimeUnit.SECONDS);
        ExecutionGraphInfo info = dispatcher.requestExecutionGraphInfo(job, Time.seconds(10)).get(10, TimeUnit.SECONDS);
        int count = 0;
        for (Object entry : info.getExceptionHistory()) {
            count++;
        }
        return count;
    }
}
