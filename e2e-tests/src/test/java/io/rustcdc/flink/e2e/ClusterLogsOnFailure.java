package io.rustcdc.flink.e2e;

import io.rustcdc.flink.testing.LocalProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Prints the last lines of every cluster process's log when a test fails (into the test's output file). */
final class ClusterLogsOnFailure implements AfterTestExecutionCallback {
    private final Supplier<FlinkCluster> cluster;

    ClusterLogsOnFailure(Supplier<FlinkCluster> cluster) {
        this.cluster = cluster;
    }

    /** A fresh directory for a cluster under target/, kept after the run for a look at its logs. */
    static Path directory(String name) throws IOException {
        Path dir = Path.of("target", "cluster-" + name).toAbsolutePath();
        LocalProcesses.deleteTree(dir);
        return Files.createDirectories(dir);
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        FlinkCluster c = cluster.get();
        if (context.getExecutionException().isPresent() && c != null) {
            System.out.println("==== " + context.getDisplayName() + " failed; the cluster's logs:\n" + c.logs());
        }
    }
}
