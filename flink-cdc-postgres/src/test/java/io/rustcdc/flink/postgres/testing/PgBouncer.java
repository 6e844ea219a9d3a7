package io.rustcdc.flink.postgres.testing;

import io.rustcdc.flink.testing.LocalProcesses;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.UnpackOnce;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PgBouncer in transaction pooling mode in front of a {@link PostgresServer}, for one login role, that
 * resets the server session after every transaction ({@code DISCARD ALL}): nothing a client sets up in its
 * session (settings, isolation, named statements) reaches its next transaction.
 *
 * <p>The program is {@code -D}{@value #BINARY_PROPERTY} when set, else {@code pgbouncer} on the PATH (or in
 * {@code /usr/sbin}), else Debian's {@code pgbouncer} package and the libraries it needs that this machine
 * lacks, fetched with {@code apt-get download} and unpacked (not installed: no service is started, nothing
 * of the machine's changes) into {@code <tmp>/rustcdc-pgbouncer} once per machine. When none of that works
 * (no apt, no network) the test is skipped, naming what failed. PgBouncer refuses to run as root: when the
 * build is root, it runs as {@code nobody}, like the servers. Stopped on {@link #close} and with the JVM.
 */
public final class PgBouncer implements AutoCloseable {
    static final String BINARY_PROPERTY = "rustcdc.pgbouncer";
    private static final String PACKAGE = "pgbouncer";
    private static final String UNPACKED_BINARY = "usr/sbin/pgbouncer";

    private static Path binary;
    private static String unavailable;

    private final Process process;
    private final Path home;
    private final int port;

    private PgBouncer(Process process, Path home, int port) {
        this.process = process;
        this.home = home;
        this.port = port;
    }

    /**
     * Starts PgBouncer with {@code pool_mode = transaction} and at most {@code poolSize} server connections
     * per database and user, for {@code user} (SCRAM, to the client and to the server), in front of {@code
     * server}; {@code user} is also its console's admin. Skips the calling test when PgBouncer cannot be had.
     */
    public static PgBouncer inTransactionMode(PostgresServer server, String user, String password, int poolSize) {
        Path program = programOrSkip();
        Path home = LocalProcesses.serverDirectory("rustcdc-pgbouncer-");
        int port = LocalProcesses.freePort();
        String ini = String.join("\n",
                "[databases]",
                "* = host=" + server.host() + " port=" + server.port(),
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = scram-sha-256",
                "auth_file = " + home.resolve("userlist.txt"),
                "admin_users = " + user,
                "pool_mode = transaction",
                // the strictest pooler: every transaction starts from the role's and database's defaults, so that
                // anything a client leaves in a session for its later transactions is lost every time
                "server_reset_query = DISCARD ALL",
                "server_reset_query_always = 1",
                "default_pool_size = " + poolSize,
                "max_client_conn = 200",
                // PgJDBC sends it at login; PgBouncer refuses a login with a parameter it does not know
                "ignore_startup_parameters = extra_float_digits",
                "server_tls_sslmode = disable",
                "");
        try {
            Path config = home.resolve("pgbouncer.ini");
            Path users = home.resolve("userlist.txt");
            Files.writeString(config, ini, StandardCharsets.UTF_8);
            Files.writeString(users, "\"" + user + "\" \"" + password + "\"\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(users, PosixFilePermissions.fromString("rw-------"));
            if (LocalProcesses.runningAsRoot()) {
                LocalProcesses.chown(config);
                LocalProcesses.chown(users);
            }
            List<String> args = List.of(program.toString(), config.toString());
            ProcessBuilder builder = new ProcessBuilder(LocalProcesses.command("TERM", args));
            Path libraries = program.getParent().getParent().resolve("lib/x86_64-linux-gnu");
            if (Files.isDirectory(libraries)) {
                builder.environment().put("LD_LIBRARY_PATH", libraries.toString());
            }
            builder.redirectErrorStream(true);
            builder.redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("pgbouncer.log").toFile()));
            PgBouncer bouncer = new PgBouncer(LocalProcesses.start(builder), home, port);
            Runtime.getRuntime().addShutdownHook(new Thread(bouncer::close, "rustcdc-pgbouncer-stop"));
            bouncer.awaitListening();
            return bouncer;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    /** What PgBouncer logged so far. */
    public String log() throws IOException {
        return Files.readString(home.resolve("pgbouncer.log"));
    }

    private void awaitListening() {
        Poll.until("PgBouncer to listen on port " + port + " (log: " + home.resolve("pgbouncer.log") + ")",
                Duration.ofSeconds(20), () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("PgBouncer exited:\n" + log());
                    }
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress(host(), port), 1000);
                        return true;
                    } catch (IOException e) {
                        return false;
                    }
                });
    }

    @Override
    public synchronized void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy(); // SIGTERM: PgBouncer closes its connections and exits at once
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        LocalProcesses.deleteTree(home);
    }

    /** The PgBouncer program, provisioned on first use; aborts (skips) the calling test when it cannot be. */
    static synchronized Path programOrSkip() {
        if (binary == null && unavailable == null) {
            try {
                binary = provision();
            } catch (RuntimeException e) {
                unavailable = e.getMessage();
            }
        }
        Assumptions.assumeTrue(binary != null, () -> "PgBouncer could not be provisioned, so this test is skipped: "
                + unavailable + ". Install it (apt-get install pgbouncer), or set -D" + BINARY_PROPERTY
                + "=<path to a pgbouncer program>.");
        return binary;
    }

    private static Path provision() {
        String configured = System.getProperty(BINARY_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured);
            if (!Files.isExecutable(p)) {
                throw new IllegalStateException("-D" + BINARY_PROPERTY + "=" + configured + " is not an executable");
            }
            return p;
        }
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            File f = new File(dir, PACKAGE);
            if (!dir.isEmpty() && f.canExecute()) {
                return f.toPath();
            }
        }
        if (!onPath("apt-get") || !onPath("dpkg-deb")) {
            throw new IllegalStateException("no pgbouncer on the PATH, and no apt-get and dpkg-deb to fetch Debian's");
        }
        Path unpacked = UnpackOnce.folder("rustcdc-pgbouncer", "debian", UNPACKED_BINARY, PgBouncer::unpackDebian);
        return unpacked.resolve(UNPACKED_BINARY);
    }

    /** {@code pgbouncer} and the libraries it depends on that are not installed, downloaded and unpacked. */
    private static void unpackDebian(Path folder) throws IOException {
        Path debs = folder.resolve("debs");
        Files.createDirectories(debs);
        List<String> packages = new ArrayList<>(List.of(PACKAGE));
        packages.addAll(missingLibraries());
        List<String> download = new ArrayList<>(List.of("apt-get", "download"));
        download.addAll(packages);
        try {
            run(debs, download, 300);
        } catch (IllegalStateException stale) {
            if (!LocalProcesses.runningAsRoot()) {
                throw stale;
            }
            run(debs, List.of("apt-get", "update"), 300); // package lists missing or older than the mirror
            run(debs, download, 300);
        }
        try (Stream<Path> files = Files.list(debs)) {
            for (Path deb : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".deb"))::iterator) {
                run(folder, List.of("dpkg-deb", "-x", deb.toString(), folder.toString()), 120);
            }
        }
        LocalProcesses.deleteTree(debs);
        ProcessBuilder version = new ProcessBuilder(folder.resolve(UNPACKED_BINARY).toString(), "--version");
        version.environment().put("LD_LIBRARY_PATH", folder.resolve("usr/lib/x86_64-linux-gnu").toString());
        LocalProcesses.run(version, 30);
    }

    /** The {@code lib*} packages {@code pgbouncer} depends on that dpkg does not have installed. */
    private static List<String> missingLibraries() {
        String depends = run(null, List.of("apt-cache", "depends", "--no-recommends", "--no-suggests",
                "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", PACKAGE), 60);
        List<String> missing = new ArrayList<>();
        for (String line : depends.split("\n")) {
            String l = line.strip();
            if (!l.startsWith("Depends: lib") || l.contains("<")) {
                continue;
            }
            String name = l.substring("Depends: ".length()).strip();
            if (!installed(name) && !missing.contains(name)) {
                missing.add(name);
            }
        }
        return missing;
    }

    private static boolean installed(String name) {
        try {
            return run(null, List.of("dpkg-query", "-W", "-f=${Status}", name), 30).contains("install ok installed");
        } catch (IllegalStateException notKnown) {
            return false;
        }
    }

    private static String run(Path dir, List<String> command, int timeoutSeconds) {
        ProcessBuilder builder = new ProcessBuilder(command);
        if (dir != null) {
            builder.directory(dir.toFile());
        }
        return LocalProcesses.run(builder, timeoutSeconds);
    }

    private static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/usr/sbin";
        return Stream.of(path.split(":")).anyMatch(dir -> !dir.isEmpty() && new File(dir, program).canExecute());
    }
}
