package io.rustcdc.flink.e2e;

import io.rustcdc.flink.testing.LocalProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link FlinkCluster} for a test class: started before its tests in {@code target/cluster-<name>}
 * (kept after the run for a look at its logs), stopped after them; when a test fails, the last lines
 * of every process's log go to the test's output.
 */
final class FlinkClusterExtension implements BeforeAllCallback, AfterAllCallback, AfterTestExecutionCallback {
    private final String name;
    private final List<Path> extraLibs;
    private FlinkCluster cluster;

    /** @param extraLibs jars to put into the cluster's lib/ */
    FlinkClusterExtension(String name, Path... extraLibs) {
        this.name = name;
        this.extraLibs = List.of(extraLibs);
    }

    FlinkCluster cluster() {
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path dir = Path.of("target", "cluster-" + name).toAbsolutePath();
        LocalProcesses.deleteTree(dir);
        cluster = FlinkCluster.start(Files.createDirectories(dir), extraLibs.toArray(new Path[0]));
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        if (context.getExecutionException().isPresent() && cluster != null) {
            System.out.println("==== " + context.getDisplayName() + " failed; the cluster's logs:\n" + cluster.logs());
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }
}
