package io.rustcdc.flink.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The CPU time the database server has used (Linux): the process listening on its port, with its children
 * (PostgreSQL's backends and background processes; MySQL's and MariaDB's threads are the process's own). An
 * ended child's time is counted in its parent's once reaped, which PostgreSQL's postmaster does at once. Read
 * from {@code /proc} in clock ticks (10 ms); on the same machine as the job, the server's CPU is what the two
 * cores give the database, not the job.
 */
final class ServerCpu {
    private static final long TICK_NANOS = 10_000_000L;
    /** The server's process id, or -1 when it was not found (then {@link #seconds} is NaN). */
    private final long pid;
    /** The largest reading so far, in ticks. */
    private long most;
    /** The largest reading so far of the user-mode part alone, in ticks. */
    private long mostUser;
    /** Whether the last {@link #seconds} reading was known. */
    private boolean lastKnown;

    private ServerCpu(long pid) {
        this.pid = pid;
    }

    /** The server listening on TCP {@code port} of this machine. */
    static ServerCpu listeningOn(int port) {
        try {
            String inode = listeningInode(port);
            return new ServerCpu(inode == null ? -1 : owner("socket:[" + inode + "]"));
        } catch (IOException e) {
            return new ServerCpu(-1);
        }
    }

    /**
     * Seconds of CPU the server has used so far (user and system), or NaN when unknown. The children are walked
     * between two readings of the server's own process and walked again when a child was reaped in between: a
     * child that ends during the walk is then counted once, read there (an unreaped child still shows its time) or
     * in the server's children's time, not in neither, which made a reading smaller than the one before it (a quick
     * run's -3.3 µs per event on a job that does not touch the database); and a reading is never smaller than an
     * earlier one (a child just reaped can be counted twice, in the server's time and still in /proc). Not thread-safe.
     * The same reading's user-mode part is kept for {@link #userSeconds}.
     */
    double seconds() {
        if (pid < 0) {
            return Double.NaN;
        }
        Path server = Path.of("/proc", String.valueOf(pid));
        for (int attempt = 1; ; attempt++) {
            long[] before = stat(server);
            long[] children = childrenTicks();
            long[] after = stat(server);
            if (before == null || after == null || children == null) {
                lastKnown = false;
                return Double.NaN;
            }
            boolean reaped = before[3] + before[4] != after[3] + after[4];
            if (!reaped || attempt == 20) {
                // never below a reading before: a child reaped just before the first reading of the server may still
                // be walked (the kernel adds its time to the server's before it removes it from /proc)
                most = Math.max(most, children[0] + after[1] + after[2] + after[3] + after[4]);
                mostUser = Math.max(mostUser, children[1] + after[1] + after[3]);
                lastKnown = true;
                return most * TICK_NANOS / 1e9;
            }
        }
    }

    /**
     * The user-mode part of the last {@link #seconds} reading (utime and cutime), never below an earlier one; NaN when
     * that reading was unknown. A PostgreSQL walsender's user time, its decoding, was found about the same under our
     * source and the raw read; its system time, mostly the sending of each message, was not (docs/benchmarks.md).
     */
    double userSeconds() {
        return lastKnown ? mostUser * TICK_NANOS / 1e9 : Double.NaN;
    }

    /**
     * The ticks of the server's living (or unreaped) children, with those of the children they reaped: all, then user
     * mode's alone; null when /proc cannot be read.
     */
    private long[] childrenTicks() {
        long[] ticks = new long[2];
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                long[] stat = stat(process);
                if (stat != null && stat[0] == pid) {
                    ticks[0] += stat[1] + stat[2] + stat[3] + stat[4];
                    ticks[1] += stat[1] + stat[3];
                }
            }
        } catch (IOException e) {
            return null;
        }
        return ticks;
    }

    /** A JSON field of the server's CPU seconds between two readings, or nothing when unknown. */
    static String field(double before, double after) {
        return field("server_cpu_seconds", before, after);
    }

    /** A JSON field of the server's user-mode CPU seconds between two readings, or nothing when unknown. */
    static String userField(double before, double after) {
        return field("server_user_cpu_seconds", before, after);
    }

    private static String field(String name, double before, double after) {
        return Double.isNaN(before) || Double.isNaN(after) ? ""
                : String.format(Locale.ROOT, ",\"%s\":%.2f", name, after - before);
    }

    /** ppid, utime, stime, cutime, cstime of a process, or null when it has ended. */
    private static long[] stat(Path process) {
        try {
            String stat = Files.readString(process.resolve("stat"), StandardCharsets.UTF_8);
            // after the name in parentheses: state (field 3), ppid (4), ..., utime (14) to cstime (17)
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]), Long.parseLong(f[12]),
                Long.parseLong(f[13]), Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The inode of the socket listening on {@code port} (IPv4 or IPv6), or null. */
    private static String listeningInode(int port) throws IOException {
        String local = String.format(Locale.ROOT, ":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                String[] f = line.trim().split("\\s+");
                // sl, local_address, rem_address, st (0A: listening), ..., inode (field 10)
                if (f.length > 9 && f[1].endsWith(local) && "0A".equals(f[3])) {
                    return f[9];
                }
            }
        }
        return null;
    }

    /** The process that holds the file descriptor {@code link}, or -1. */
    private static long owner(String link) throws IOException {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                try (DirectoryStream<Path> fds = Files.newDirectoryStream(process.resolve("fd"))) {
                    for (Path fd : fds) {
                        if (link.equals(Files.readSymbolicLink(fd).toString())) {
                            return Long.parseLong(process.getFileName().toString());
                        }
                    }
                } catch (IOException e) {
                    // ended, or not ours to read
                }
            }
        }
        return -1;
    }
}
