package io.rustcdc.flink.e2e;

import io.rustcdc.flink.testing.LocalProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link FlinkCluster} for the test classes that name it, one cluster at a time: started before the
 * first of them in {@code target/cluster-<name>} (kept after the run for a look at its logs) and kept for
 * the next class that names it, so that consecutive classes share one cluster start (the cluster
 * execution runs them in alphabetical order); stopped when a class names another one, or when the run
 * ends. When a test fails, the last lines of every process's log go to the test's output.
 */
final class FlinkClusterExtension implements BeforeAllCallback, AfterTestExecutionCallback {
    private static final ExtensionContext.Namespace CLUSTERS = ExtensionContext.Namespace.create(FlinkCluster.class);

    /** The cluster started last, while it runs. */
    private static Started current;

    private final String name;
    private final List<Path> extraLibs;
    private FlinkCluster cluster;

    /** @param extraLibs jars to put into the cluster's lib/ */
    private FlinkClusterExtension(String name, Path... extraLibs) {
        this.name = name;
        this.extraLibs = List.of(extraLibs);
    }

    /** The cluster that job jars are submitted to: nothing of ours in lib/. */
    static FlinkClusterExtension forJobJars() {
        return new FlinkClusterExtension("job-jar");
    }

    /** The cluster of the SQL client: both SQL connector jars in lib/, as a user who reads both would have. */
    static FlinkClusterExtension forSqlClient() {
        return new FlinkClusterExtension("sql-client",
                Path.of(System.getProperty("rustcdc.sql.connector.jar",
                        "../flink-cdc-sql/target/flink-sql-connector-rustcdc-postgres.jar")),
                Path.of(System.getProperty("rustcdc.sql.mysql.connector.jar",
                        "../flink-cdc-sql/target/flink-sql-connector-rustcdc-mysql.jar")));
    }

    FlinkCluster cluster() {
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        synchronized (FlinkClusterExtension.class) {
            ExtensionContext.Store store = context.getRoot().getStore(CLUSTERS);
            if (current != null && !current.name.equals(name)) {
                store.remove(current.name);
                current.close();
                current = null;
            }
            if (current == null) {
                current = start();
                store.put(name, current);
            } else if (!current.extraLibs.equals(extraLibs)) {
                throw new IllegalStateException("The cluster " + name + " was started with " + current.extraLibs
                        + " in lib/, not " + extraLibs);
            }
            cluster = current.cluster;
        }
    }

    private Started start() {
        try {
            Path dir = Path.of("target", "cluster-" + name).toAbsolutePath();
            LocalProcesses.deleteTree(dir);
            return new Started(name, FlinkCluster.start(Files.createDirectories(dir), extraLibs.toArray(new Path[0])),
                    extraLibs);
        } catch (Exception e) {
            throw new IllegalStateException("The cluster " + name + " did not start", e);
        }
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        if (context.getExecutionException().isPresent() && cluster != null) {
            System.out.println("==== " + context.getDisplayName() + " failed; the cluster's logs:\n" + cluster.logs());
        }
    }

    /** A started cluster, stopped by JUnit when the run's root store closes. */
    private record Started(String name, FlinkCluster cluster, List<Path> extraLibs) implements AutoCloseable {
        @Override
        public void close() {
            cluster.close();
        }
    }
}
