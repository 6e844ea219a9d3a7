package io.rustcdc.flink.testing.compat;

import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.minicluster.MiniCluster;

/** A MiniCluster job's exception history, on Flink 2.x (Flink 1.20's twin is in {@code src/test/flink-1.20}). */
public final class JobFailures {
    private JobFailures() {}

    /** How many failures Flink has handled for the job: each entry of its exception history is one. */
    public static int count(MiniCluster cluster, JobID job) throws Exception {
        int count = 0;
        for (Object entry : cluster.getExecutionGraphInfo(job).get(10, TimeUnit.SECONDS).getExceptionHistory()) {
            count++;
        }
        return count;
    }
}
