package io.rustcdc.flink.e2e;

import io.rustcdc.flink.testing.LocalProcesses;
import io.rustcdc.flink.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Flink session cluster as a user runs one, assembled from Maven Central artifacts (the build
 * copies them to {@code rustcdc.flink.home}, see the e2e profile): a JobManager JVM
 * ({@code StandaloneSessionClusterEntrypoint}) and TaskManager JVMs ({@code TaskManagerRunner}),
 * bound to 127.0.0.1, sized like Flink's scripts size them, plus Flink's CLI and SQL client as
 * separate JVMs. Every process is stopped by {@link #close()}, also when a test fails.
 */
final class FlinkCluster implements AutoCloseable {
    private static final Pattern JOB_ID = Pattern.compile("JobID ([0-9a-f]{32})");
    private static final Path HOME = Path.of(System.getProperty("rustcdc.flink.home", "target/flink"));
    private static final int METRICS_PORTS = 8;
    /**
     * The JIT of the client JVMs (the CLI, the SQL client, the snapshot control's command line and BashJavaUtils):
     * C1 only. They are over in seconds of start-up and planning, where C2 compiling takes about 40 % of the CPU;
     * the JobManager and the TaskManagers run with the JIT Flink's scripts give them.
     */
    private static final String CLIENT_JIT = "-XX:TieredStopAtLevel=1";

    private final Path dir;
    private final Path conf;
    private final Path lib;
    private final Path log;
    private final int restPort;
    /** The first of the ports the Prometheus reporters of the cluster's processes may take, one each. */
    private final int metricsPort;
    private final List<Process> processes = new ArrayList<>();
    private final List<Process> taskManagers = new ArrayList<>();
    /** What BashJavaUtils printed for each of its questions: the same for every process of this config. */
    private final Map<String, List<String>> resourceParams = new HashMap<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private int started;

    private FlinkCluster(Path dir, List<Path> extraLibs) throws IOException {
        this.dir = dir;
        this.conf = Files.createDirectories(dir.resolve("conf"));
        this.lib = Files.createDirectories(dir.resolve("lib"));
        this.log = Files.createDirectories(dir.resolve("log"));
        this.restPort = LocalProcesses.freePort();
        this.metricsPort = LocalProcesses.freePort();
        try (Stream<Path> jars = Files.list(HOME.resolve("lib"))) {
            for (Path jar : (Iterable<Path>) jars::iterator) {
                Files.createSymbolicLink(lib.resolve(jar.getFileName()), jar.toAbsolutePath());
            }
        }
        for (Path jar : extraLibs) {
            Files.copy(jar, lib.resolve(jar.getFileName()));
        }
        writeConfig();
    }

    /** Starts a JobManager and one TaskManager with 2 slots; {@code extraLibs} go into the cluster's lib/. */
    static FlinkCluster start(Path dir, Path... extraLibs) throws Exception {
        FlinkCluster cluster = new FlinkCluster(dir, List.of(extraLibs));
        try {
            cluster.startJobManager();
            cluster.startTaskManager();
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void writeConfig() throws IOException {
        String config = String.join("\n",
                "jobmanager.rpc.address: 127.0.0.1",
                "jobmanager.rpc.port: " + LocalProcesses.freePort(),
                "jobmanager.bind-host: 127.0.0.1",
                "rest.address: 127.0.0.1",
                "rest.bind-address: 127.0.0.1",
                "rest.port: " + restPort,
                "taskmanager.host: 127.0.0.1",
                "taskmanager.bind-host: 127.0.0.1",
                "taskmanager.numberOfTaskSlots: 2",
                "jobmanager.memory.process.size: 1024m",
                "taskmanager.memory.process.size: 1280m",
                "parallelism.default: 1",
                // a TaskManager registers within seconds, and a killed one is noticed within seconds
                "cluster.registration.error-delay: 500 ms",
                "cluster.registration.initial-timeout: 200 ms",
                "heartbeat.interval: 1000 ms",
                "heartbeat.timeout: 6000 ms",
                "restart-strategy.type: fixed-delay",
                "restart-strategy.fixed-delay.attempts: 100",
                "restart-strategy.fixed-delay.delay: 1 s",
                // each process takes the first free port of the range: the JobManager and every TaskManager
                "metrics.reporter.prom.factory.class: org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
                "metrics.reporter.prom.port: " + metricsPort + "-" + (metricsPort + METRICS_PORTS - 1),
                "execution.checkpointing.dir: " + dir.resolve("checkpoints").toUri(),
                "execution.checkpointing.savepoint-dir: " + dir.resolve("savepoints").toUri(),
                "io.tmp.dirs: " + Files.createDirectories(dir.resolve("tmp")),
                "web.upload.dir: " + Files.createDirectories(dir.resolve("upload")),
                "");
        Files.writeString(conf.resolve("config.yaml"), config);
        Files.writeString(conf.resolve("log4j.properties"), String.join("\n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = file",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.fileName = ${sys:log.file}",
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-60c %x - %m%n",
                ""));
    }

    private void startJobManager() throws Exception {
        List<String> resources = resourceParams("GET_JM_RESOURCE_PARAMS");
        List<String> command = java("jobmanager", resources.get(0));
        command.add("org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
        command.add("--configDir");
        command.add(conf.toString());
        command.addAll(Arrays.asList(resources.get(1).trim().split("\\s+")));
        processes.add(launch(command, "jobmanager"));
        Poll.until("the JobManager's REST endpoint", Duration.ofSeconds(60), () -> get("/overview") != null);
    }

    /** Starts one more TaskManager and waits until it has registered. */
    void startTaskManager() throws Exception {
        List<String> resources = resourceParams("GET_TM_RESOURCE_PARAMS");
        String name = "taskmanager-" + (++started);
        List<String> command = java(name, resources.get(0));
        command.add("org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
        command.add("--configDir");
        command.add(conf.toString());
        command.addAll(Arrays.asList(resources.get(1).trim().split("\\s+")));
        command.addAll(List.of("-D", "taskmanager.resource-id=" + name));
        Process tm = launch(command, name);
        processes.add(tm);
        taskManagers.add(tm);
        Poll.until("TaskManager " + name + " to register", Duration.ofSeconds(60), () -> {
            String body = get("/taskmanagers");
            return body != null && body.contains("\"id\":\"" + name + "\"");
        });
    }

    /** Kills the newest TaskManager with SIGKILL, as a machine loss would. */
    void killTaskManager() throws InterruptedException {
        Process tm = taskManagers.remove(taskManagers.size() - 1);
        tm.destroyForcibly();
        tm.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * The stdout of the TaskManager started last, where the print sink writes (earlier test classes on the
     * same cluster may have killed and replaced TaskManagers).
     */
    Path lastTaskManagerOut() {
        return log.resolve("taskmanager-" + started + ".out");
    }

    /** Runs Flink's CLI ({@code flink run|stop|cancel ...}) and returns its output; fails when it fails. */
    String cli(String... args) throws Exception {
        List<String> command = java("cli", CLIENT_JIT);
        command.add("org.apache.flink.client.cli.CliFrontend");
        command.addAll(List.of(args));
        return runToEnd(command, "cli", Duration.ofMinutes(3));
    }

    /**
     * Runs the snapshot control's command line ({@code SnapshotControl <control path> <operation> ...}) with
     * {@code jar} (a job jar holding the connector) and Flink's lib/ on the class path, as docs/operations.md
     * says; returns its exit code and output.
     */
    Map.Entry<Integer, String> control(Path jar, String... args) throws Exception {
        List<String> command = java("control", CLIENT_JIT);
        int cp = command.indexOf("-cp") + 1;
        command.set(cp, jar.toAbsolutePath() + ":" + command.get(cp));
        command.add("io.rustcdc.flink.source.control.SnapshotControl");
        command.addAll(List.of(args));
        Path out = log.resolve("control-" + System.nanoTime() + ".out");
        Process p = LocalProcesses.start(new ProcessBuilder(LocalProcesses.command("KILL", command, false))
                .redirectErrorStream(true).redirectOutput(out.toFile()));
        processes.add(p);
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("SnapshotControl " + List.of(args) + " did not end within 3 minutes");
        }
        return Map.entry(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    /** Submits a job jar detached and returns its job id. */
    String submit(Path jar, String mainClass, String... args) throws Exception {
        List<String> cli = new ArrayList<>(List.of("run", "-d", "-c", mainClass, jar.toString()));
        cli.addAll(List.of(args));
        return jobId(cli(cli.toArray(new String[0])));
    }

    /** The job id that {@code flink run -d} printed. */
    static String jobId(String cliOutput) {
        Matcher m = JOB_ID.matcher(cliOutput);
        if (!m.find()) {
            throw new AssertionError("flink run printed no job id:\n" + cliOutput);
        }
        return m.group(1);
    }

    /** Runs Flink's SQL client on {@code script} ({@code sql-client.sh -f}) and returns its output. */
    String sqlClient(Path script) throws Exception {
        List<String> command = java("sql-client", CLIENT_JIT);
        int cp = command.indexOf("-cp") + 1;
        command.set(cp, command.get(cp) + ":" + HOME.resolve("opt").toAbsolutePath() + "/*");
        command.add("org.apache.flink.table.client.SqlClient");
        command.addAll(List.of("embedded", "-f", script.toString(), "-hist", dir.resolve("sql-history").toString()));
        return runToEnd(command, "sql-client", Duration.ofMinutes(3));
    }

    /**
     * Cancels a job through the REST API, as {@code flink cancel} does without a CLI JVM's start, and waits
     * until it is CANCELED, so that its slots are free for the next job.
     */
    void cancel(String jobId) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + "/jobs/"
                + jobId)).method("PATCH", HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
            throw new AssertionError("Cancelling job " + jobId + " answered " + r.statusCode() + ": " + r.body());
        }
        Poll.until("job " + jobId + " to be cancelled", Duration.ofSeconds(60), () -> "CANCELED".equals(jobState(jobId)));
    }

    /** The job's state from the REST API, e.g. RUNNING. */
    String jobState(String jobId) {
        String body = get("/jobs/" + jobId);
        Matcher m = Pattern.compile("\"state\"\\s*:\\s*\"(\\w+)\"").matcher(body == null ? "" : body);
        return m.find() ? m.group(1) : "UNKNOWN";
    }

    /** How many checkpoints of the job have completed. */
    int completedCheckpoints(String jobId) {
        String body = get("/jobs/" + jobId + "/checkpoints");
        Matcher m = Pattern.compile("\"completed\"\\s*:\\s*(\\d+)").matcher(body == null ? "" : body);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** Waits until the job is RUNNING with all its tasks running. */
    void awaitRunning(String jobId) throws InterruptedException {
        Poll.until("job " + jobId + " to run", Duration.ofSeconds(120), () -> "RUNNING".equals(jobState(jobId))
                && !get("/jobs/" + jobId).matches("(?s).*\"status\"\\s*:\\s*\"(CREATED|SCHEDULED|DEPLOYING|INITIALIZING)\".*"));
    }

    void awaitCheckpoints(String jobId, int more) throws InterruptedException {
        int target = completedCheckpoints(jobId) + more;
        Poll.until(more + " more checkpoints of job " + jobId, Duration.ofSeconds(120),
                () -> completedCheckpoints(jobId) >= target);
    }

    private String get(String path) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The JVM flags and the dynamic properties Flink's own scripts compute for a process of this config. */
    private List<String> resourceParams(String which) throws Exception {
        List<String> known = resourceParams.get(which);
        if (known != null) {
            return known;
        }
        List<String> command = java("bash-java-utils", CLIENT_JIT);
        command.add("org.apache.flink.runtime.util.bash.BashJavaUtils");
        command.addAll(List.of(which, "--configDir", conf.toString()));
        String out = runToEnd(command, "bash-java-utils", Duration.ofMinutes(1));
        List<String> results = out.lines().filter(l -> l.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:"))
                .map(l -> l.substring("BASH_JAVA_UTILS_EXEC_RESULT:".length())).toList();
        if (results.size() != 2) {
            throw new IllegalStateException(which + " printed:\n" + out);
        }
        resourceParams.put(which, results);
        return results;
    }

    private List<String> java(String name, String jvmFlags) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FlinkJvm.OPTIONS);
        if (!jvmFlags.isBlank()) {
            command.addAll(Arrays.asList(jvmFlags.trim().split("\\s+")));
        }
        command.add("-Dlog.file=" + log.resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        command.add("-cp");
        command.add(lib.toAbsolutePath() + "/*");
        return command;
    }

    private Process launch(List<String> command, String name) {
        ProcessBuilder pb = new ProcessBuilder(LocalProcesses.command("KILL", command, false)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.resolve(name + ".out").toFile()));
        pb.environment().put("FLINK_CONF_DIR", conf.toString());
        pb.environment().put("FLINK_PLUGINS_DIR", HOME.resolve("plugins").toAbsolutePath().toString());
        return LocalProcesses.start(pb);
    }

    private String runToEnd(List<String> command, String name, Duration timeout) throws Exception {
        Path out = log.resolve(name + "-" + System.nanoTime() + ".out");
        ProcessBuilder pb = new ProcessBuilder(LocalProcesses.command("KILL", command, false)).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        pb.environment().put("FLINK_CONF_DIR", conf.toString());
        pb.environment().put("FLINK_PLUGINS_DIR", HOME.resolve("plugins").toAbsolutePath().toString());
        Process p = LocalProcesses.start(pb);
        processes.add(p);
        boolean ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        String text = Files.readString(out, StandardCharsets.UTF_8);
        if (!ended) {
            p.destroyForcibly();
            throw new AssertionError(name + " did not end within " + timeout + ":\n" + text);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError(name + " exited with " + p.exitValue() + ":\n" + text);
        }
        return text;
    }

    /**
     * What a Prometheus server scraping every process of the cluster would read now: the text of each
     * reporter's {@code /metrics} that answers.
     */
    String prometheusMetrics() {
        StringBuilder sb = new StringBuilder();
        for (int port = metricsPort; port < metricsPort + METRICS_PORTS; port++) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/metrics")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    sb.append(r.body());
                }
            } catch (IOException e) {
                // no reporter on this port
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return sb.toString();
    }

    /** The logs of every process, for a failure message. */
    String logs() {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(log)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                sb.append("==== ").append(f.getFileName()).append(" (last lines)\n");
                lines.stream().skip(Math.max(0, lines.size() - 40)).forEach(l -> sb.append(l).append('\n'));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sb.toString();
    }

    Path dir() {
        return dir;
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
