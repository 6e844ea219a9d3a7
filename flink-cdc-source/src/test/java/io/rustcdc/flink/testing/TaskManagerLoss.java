package io.rustcdc.flink.testing;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * Loses a MiniCluster's TaskManager and starts a new one, as a machine loss and its replacement would.
 * {@code MiniCluster.terminateTaskManager(i)} closes the {@code i}-th TaskManager the cluster ever started
 * (its list keeps the closed ones), so calling it with 0 twice loses a TaskManager only once: the second
 * call closes one already closed and nothing happens. This keeps the index of the live one. For clusters
 * of one TaskManager whose TaskManagers only this class starts.
 */
public final class TaskManagerLoss {
    private static final Map<MiniCluster, Integer> LIVE = Collections.synchronizedMap(new WeakHashMap<>());

    private TaskManagerLoss() {}

    /** Terminates the live TaskManager (waiting up to {@code timeout}), then starts a new one. */
    public static void killAndReplace(MiniCluster cluster, Duration timeout) throws Exception {
        int live = LIVE.getOrDefault(cluster, 0);
        cluster.terminateTaskManager(live).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        cluster.startTaskManager();
        LIVE.put(cluster, live + 1);
    }
}
