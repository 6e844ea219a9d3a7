package io.rustcdc.flink.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Starts database server processes for tests, so that none outlives the test JVM.
 *
 * <p>Servers refuse to run as root (PostgreSQL) or need to be told (MariaDB). When the build runs
 * as root, as CI does, {@link #command} runs the server as {@code nobody}. Every process gets a
 * parent-death signal: if the JVM dies without running its shutdown hooks, the kernel still
 * stops the server. Because that signal fires when the forking <em>thread</em> ends, every
 * process is forked from one thread that lives as long as the JVM.
 */
public final class LocalProcesses {
    /** The uid and gid servers run as when the build runs as root. */
    public static final int UNPRIVILEGED_ID = 65534;

    private static final ExecutorService FORKER =
            Executors.newSingleThreadExecutor(
                    r -> {
                        Thread t = new Thread(r, "rustcdc-test-server-forker");
                        t.setDaemon(true);
                        return t;
                    });

    private LocalProcesses() {}

    public static boolean runningAsRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /**
     * The command line that runs {@code args} as an unprivileged user when this JVM is root, and
     * with a parent-death signal ({@code signal}, e.g. {@code INT}) wherever {@code setpriv} exists.
     */
    public static List<String> command(String signal, List<String> args) {
        return command(signal, args, true);
    }

    /**
     * As {@link #command(String, List)}; with {@code unprivileged} false the process keeps this
     * JVM's user (for programs that run as root, such as Flink's).
     */
    public static List<String> command(String signal, List<String> args, boolean unprivileged) {
        List<String> command = new ArrayList<>();
        if (new File("/usr/bin/setpriv").canExecute()) {
            command.add("/usr/bin/setpriv");
            if (unprivileged && runningAsRoot()) {
                command.add("--reuid=" + UNPRIVILEGED_ID);
                command.add("--regid=" + UNPRIVILEGED_ID);
                command.add("--clear-groups");
            }
            command.add("--pdeathsig=" + signal);
            command.add("--");
        } else if (unprivileged && runningAsRoot()) {
            throw new IllegalStateException(
                    "The build runs as root and /usr/bin/setpriv (util-linux) is missing: "
                            + "install util-linux or run the build as an ordinary user");
        }
        command.addAll(args);
        return command;
    }

    /** Starts a process from the long-lived forker thread (see the class comment). */
    public static Process start(ProcessBuilder builder) {
        Future<Process> started = FORKER.submit(builder::start);
        try {
            return started.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Could not start " + builder.command(), e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("Could not start " + builder.command(), e);
        }
    }

    /** Runs a command to its end, failing with its output when it exits non-zero. */
    public static String run(ProcessBuilder builder, long timeoutSeconds) {
        builder.redirectErrorStream(true);
        Process process = start(builder);
        try {
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("Timed out: " + builder.command() + "\n" + output);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(
                        "Exit code " + process.exitValue() + ": " + builder.command() + "\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A TCP port on 127.0.0.1 that was free a moment ago. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A new directory under the temp folder that the server's user can own and traverse. The
     * project may be checked out below a folder that {@code nobody} cannot enter (such as
     * {@code /root}), so server files never live below the build directory.
     */
    public static Path serverDirectory(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            if (runningAsRoot()) {
                chown(dir);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Gives {@code path} to the unprivileged user (only meaningful when running as root). */
    public static void chown(Path path) throws IOException {
        Files.setAttribute(path, "unix:uid", UNPRIVILEGED_ID);
        Files.setAttribute(path, "unix:gid", UNPRIVILEGED_ID);
    }

    /** Deletes a directory tree, ignoring what is already gone. */
    public static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.deleteIfExists(p);
                                } catch (IOException ignored) {
                                    // best effort: a server may still be writing its last log line
                                }
                            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
