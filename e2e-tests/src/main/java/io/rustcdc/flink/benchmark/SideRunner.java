package io.rustcdc.flink.benchmark;

import io.rustcdc.flink.e2e.FlinkJvm;
import io.rustcdc.flink.testing.LocalProcesses;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one side ({@code ours} or {@code peer}) for one run of one phase in a JVM of its own, with
 * the same heap limit and a JFR recording for both, and returns the run's result JSON. In a quick run
 * ({@code shareJvm}), each side's runs run in turn in one JVM of the side's ({@code --worker true} of
 * {@code io.rustcdc.benchmark.BenchmarkRun}), each a job and a JFR recording of its own on the JVM's one MiniCluster: a
 * quick run's JVMs were mostly their start (about 5 s each at a load average of 2, 30 of them in CI's three quick
 * runs). A run that fails ends its JVM; the side's next run starts another.
 */
final class SideRunner implements AutoCloseable {
    static final String OURS = "ours";
    static final String PEER = "peer";

    /**
     * The JIT of a quick run's JVMs, both sides': C1 only. A quick run's JVMs are mostly start-up (the
     * MiniCluster, class loading, a few seconds of work), where C2 compiling costs about 40 % of the CPU a run
     * takes; its figures check the harness and measure nothing.
     */
    static final List<String> QUICK_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1");

    private final Path out;
    private final BenchmarkTarget target;
    private final String heap;
    private final List<String> jvmOptions;
    private final boolean shareJvm;
    /** With {@code shareJvm}, each side's JVM while it runs, for the side's next run. */
    private final Map<String, SideJvm> jvms = new HashMap<>();
    /** With {@code shareJvm}, the log of each run: its side's JVM's, named after the JVM's first run. */
    private final Map<String, Path> logs = new HashMap<>();

    /**
     * @param heap each run's maximum heap, as for {@code -Xmx}
     * @param jvmOptions more options of each run's JVM, the same for both sides
     * @param shareJvm whether each side's runs run in turn in one JVM (a quick run's) instead of a JVM each
     */
    SideRunner(Path out, BenchmarkTarget target, String heap, List<String> jvmOptions, boolean shareJvm) {
        this.out = out;
        this.target = target;
        this.heap = heap;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.shareJvm = shareJvm;
    }

    /** A side's JVM that runs the side's runs in turn, each one's arguments a line on its input. */
    private static final class SideJvm {
        final Process process;
        final Writer input;
        final Path log;

        SideJvm(Process process, Path log) {
            this.process = process;
            this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            this.log = log;
        }
    }

    /** The JFR recording of a run, named as {@link #run} names it. */
    Path recording(String name) {
        return out.resolve("jfr").resolve(name + ".jfr");
    }

    /** The log of a run, named as {@link #run} names it (with {@code shareJvm}, its JVM's). */
    Path log(String name) {
        return logs.getOrDefault(name, out.resolve("logs").resolve(name + ".log"));
    }

    String run(String side, String name, List<String> phaseArgs) throws IOException, InterruptedException {
        Files.createDirectories(out.resolve("jfr"));
        Files.createDirectories(out.resolve("logs"));
        Path result = out.resolve("runs").resolve(name + ".json");
        Files.createDirectories(result.getParent());
        Files.deleteIfExists(result);
        List<String> runArgs = new ArrayList<>(target.connection());
        runArgs.addAll(List.of("--checkpoint-ms", "3000", "--result", result.toString()));
        runArgs.addAll(phaseArgs);
        if (shareJvm) {
            return runInSideJvm(side, name, runArgs, result);
        }
        List<String> command = command(side, List.of("-XX:StartFlightRecording=filename=" + recording(name)
                + ",settings=profile"));
        command.addAll(runArgs);
        Path log = log(name);
        ProcessBuilder pb = new ProcessBuilder(LocalProcesses.command("KILL", command, false))
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = LocalProcesses.start(pb);
        if (!p.waitFor(40, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(name + " did not end in 40 minutes; see " + log);
        }
        if (p.exitValue() != 0 || !Files.exists(result)) {
            throw new RunFailure(name + " failed (exit " + p.exitValue() + "); the end of " + log + ":\n" + tail(log),
                    reason(Files.readAllLines(log, StandardCharsets.UTF_8)));
        }
        return Files.readString(result, StandardCharsets.UTF_8).trim();
    }

    /** A side's JVM's command up to its main class, the run's arguments to follow; {@code more}: JVM options. */
    private List<String> command(String side, List<String> more) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FlinkJvm.OPTIONS);
        command.add("-Xmx" + heap);
        command.addAll(jvmOptions);
        command.addAll(more);
        command.add("-Dlog4j2.configurationFile=quickstart-log4j2.properties");
        command.add("-cp");
        command.add(OURS.equals(side) ? System.getProperty("java.class.path") : target.peerClasspath());
        command.add(OURS.equals(side) ? OurBenchmark.class.getName() : target.peerMain());
        return command;
    }

    /**
     * A run in the side's JVM ({@code shareJvm}): the arguments of the run as a line on its input, or a JVM started
     * for it when the side has none running; the result once the JVM writes it. A JVM that ends before is a run that
     * failed, its reason in what the JVM logged since the run began.
     */
    private String runInSideJvm(String side, String name, List<String> runArgs, Path result)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(runArgs);
        args.addAll(List.of("--recording", recording(name).toString(), "--worker", "true"));
        SideJvm jvm = jvms.get(side);
        int logFrom = 0;
        if (jvm != null && jvm.process.isAlive()) {
            logFrom = Files.readAllLines(jvm.log, StandardCharsets.UTF_8).size();
            jvm.input.write(String.join("\t", args) + "\n");
            jvm.input.flush();
        } else {
            Path log = log(name);
            List<String> command = command(side, List.of());
            command.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(LocalProcesses.command("KILL", command, false))
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            jvm = new SideJvm(LocalProcesses.start(pb), log);
            jvms.put(side, jvm);
        }
        logs.put(name, jvm.log);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(40);
        while (!Files.exists(result)) {
            if (!jvm.process.isAlive() && !Files.exists(result)) {
                jvms.remove(side);
                List<String> lines = Files.readAllLines(jvm.log, StandardCharsets.UTF_8);
                throw new RunFailure(name + " failed (exit " + jvm.process.exitValue() + "); the end of " + jvm.log
                        + ":\n" + tail(jvm.log), reason(lines.subList(Math.min(logFrom, lines.size()), lines.size())));
            }
            if (System.nanoTime() > deadline) {
                jvm.process.destroyForcibly();
                jvms.remove(side);
                throw new IllegalStateException(name + " did not end in 40 minutes; see " + jvm.log);
            }
            Thread.sleep(10);
        }
        return Files.readString(result, StandardCharsets.UTF_8).trim();
    }

    /** Ends the sides' JVMs ({@code shareJvm}): their input ends, and they exit (else, after 30 s, are killed). */
    @Override
    public void close() throws IOException {
        for (SideJvm jvm : jvms.values()) {
            jvm.input.close();
            try {
                if (!jvm.process.waitFor(30, TimeUnit.SECONDS)) {
                    jvm.process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                jvm.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        jvms.clear();
    }

    /** A run that failed, with the reason its log gives. */
    static final class RunFailure extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final String reason;

        RunFailure(String message, String reason) {
            super(message);
            this.reason = reason;
        }

        /** The root cause in one line, for the report. */
        String reason() {
            return reason;
        }
    }

    /**
     * The root cause of a failed run in one line of at most 300 characters: the log's last {@code
     * Caused by:} line, else its last line that names an exception or error.
     */
    static String reason(List<String> log) {
        String cause = null;
        String exception = null;
        for (String line : log) {
            String l = line.strip();
            if (l.startsWith("Caused by: ")) {
                cause = l.substring("Caused by: ".length());
            } else if (l.matches("[\\w.$]+(Exception|Error)(: .*)?")) {
                exception = l;
            }
        }
        String found = cause != null ? cause : exception;
        if (found == null) {
            return "no exception in its log";
        }
        String oneLine = found.replaceAll("\\s+", " ");
        return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 297) + "...";
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
