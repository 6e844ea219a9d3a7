package io.rustcdc.benchmark.cluster;

import io.rustcdc.benchmark.BenchmarkArgs;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * In a JVM that runs a side's runs in turn ({@code --worker true}, a quick run's), one MiniCluster for all its jobs,
 * started by the first, each job submitted to it as to a remote cluster: a MiniCluster's start was about 2 s of each
 * quick run's job in a JVM that had run others (2026-12-07). Elsewhere, each job on a MiniCluster of its own, as
 * Flink's local environment starts it. Compiled into each side, against its Flink.
 */
public final class WorkerCluster {
    private static MiniCluster cluster;

    private WorkerCluster() {}

    /**
     * A run's environment of {@code conf}: Flink's local one (a MiniCluster for the job), or with {@code --worker true}
     * a remote one, whose jobs go to this JVM's one MiniCluster.
     */
    public static synchronized StreamExecutionEnvironment environment(Configuration conf, BenchmarkArgs args)
            throws Exception {
        if (!args.has("worker") || !"true".equals(args.get("worker"))) {
            return StreamExecutionEnvironment.getExecutionEnvironment(conf);
        }
        if (cluster == null) {
            Configuration clusterConf = new Configuration();
            clusterConf.set(RestOptions.BIND_PORT, "0"); // any free port, as Flink's local environment's
            MiniCluster started = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(clusterConf)
                    .setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build());
            started.start();
            cluster = started;
        }
        URI rest = cluster.getRestAddress().get(1, TimeUnit.MINUTES);
        return StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), conf);
    }
}
