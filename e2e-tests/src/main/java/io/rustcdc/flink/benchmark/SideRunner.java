package io.rustcdc.flink.benchmark;

import io.rustcdc.flink.e2e.FlinkJvm;
import io.rustcdc.flink.testing.LocalProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one side ({@code ours} or {@code peer}) for one run of one phase in a JVM of its own, with
 * the same heap limit and a JFR recording for both, and returns the run's result JSON.
 */
final class SideRunner {
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

    /**
     * @param heap each run's maximum heap, as for {@code -Xmx}
     * @param jvmOptions more options of each run's JVM, the same for both sides
     */
    SideRunner(Path out, BenchmarkTarget target, String heap, List<String> jvmOptions) {
        this.out = out;
        this.target = target;
        this.heap = heap;
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /** The JFR recording of a run, named as {@link #run} names it. */
    Path recording(String name) {
        return out.resolve("jfr").resolve(name + ".jfr");
    }

    /** The log of a run, named as {@link #run} names it. */
    Path log(String name) {
        return out.resolve("logs").resolve(name + ".log");
    }

    String run(String side, String name, List<String> phaseArgs) throws IOException, InterruptedException {
        Files.createDirectories(out.resolve("jfr"));
        Files.createDirectories(out.resolve("logs"));
        Path result = out.resolve("runs").resolve(name + ".json");
        Files.createDirectories(result.getParent());
        Files.deleteIfExists(result);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(FlinkJvm.OPTIONS);
        command.add("-Xmx" + heap);
        command.addAll(jvmOptions);
        command.add("-XX:StartFlightRecording=filename=" + recording(name) + ",settings=profile");
        command.add("-Dlog4j2.configurationFile=quickstart-log4j2.properties");
        command.add("-cp");
        command.add(OURS.equals(side) ? System.getProperty("java.class.path") : target.peerClasspath());
        command.add(OURS.equals(side) ? OurBenchmark.class.getName() : target.peerMain());
        command.addAll(target.connection());
        command.addAll(List.of("--checkpoint-ms", "3000", "--result", result.toString()));
        command.addAll(phaseArgs);
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
