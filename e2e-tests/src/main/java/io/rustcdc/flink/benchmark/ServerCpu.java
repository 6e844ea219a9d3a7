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
     */
    double seconds() {
        if (pid < 0) {
            return Double.NaN;
        }
        Path server = Path.of("/proc", String.valueOf(pid));
        for (int attempt = 1; ; attempt++) {
            long[] before = stat(server);
            long children = childrenTicks();
            long[] after = stat(server);
            if (before == null || after == null || children < 0) {
                return Double.NaN;
            }
            boolean reaped = before[3] + before[4] != after[3] + after[4];
            if (!reaped || attempt == 20) {
                // never below a reading before: a child reaped just before the first reading of the server may still
                // be walked (the kernel adds its time to the server's before it removes it from /proc)
                most = Math.max(most, children + after[1] + after[2] + after[3] + after[4]);
                return most * TICK_NANOS / 1e9;
            }
        }
    }

    /**
     * The ticks of the server's living (or unreaped) children, with those of the children they reaped, or -1 when
     * /proc cannot be read.
     */
    private long childrenTicks() {
        long ticks = 0;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                long[] stat = stat(process);
                if (stat != null && stat[0] == pid) {
                    ticks += stat[1] + stat[2] + stat[3] + stat[4];
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks;
    }

    /** A JSON field of the server's CPU seconds between two readings, or nothing when unknown. */
    static String field(double before, double after) {
        return Double.isNaN(before) || Double.isNaN(after) ? ""
                : String.format(Locale.ROOT, ",\"server_cpu_seconds\":%.2f", after - before);
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
