package io.rustcdc.flink.postgres.testing;

import io.rustcdc.flink.testing.LocalProcesses;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One PostgreSQL server per test JVM, ready for logical replication.
 *
 * <p>By default it is started from the binaries artifact on the classpath ({@link
 * PostgresBinaries}) on a free loopback port, with {@code wal_level=logical} and {@code
 * synchronous_commit=on}, and stopped when the JVM exits. Set {@code RUSTCDC_TEST_POSTGRES_URL}
 * (a JDBC URL of an existing database), {@code RUSTCDC_TEST_POSTGRES_USER} and {@code
 * RUSTCDC_TEST_POSTGRES_PASSWORD} (a superuser) to use an external server instead.
 *
 * <p>Either way the server has a login role {@link #REPLICATION_USER} with the {@code
 * REPLICATION} attribute and a SCRAM password. Thread-safe.
 */
public final class PostgresServer {
    public static final String REPLICATION_USER = "rustcdc_replication";
    static final String URL_VARIABLE = "RUSTCDC_TEST_POSTGRES_URL";

    private static PostgresServer shared;

    private final String host;
    private final int port;
    private final String adminUser;
    private final String adminPassword;
    private final String adminDatabase;
    private final String replicationPassword;
    private final AtomicInteger databases = new AtomicInteger();
    private final Path tlsCertificate;
    /** The embedded server's process, the command that starts it and its directory; null for an external server. */
    private volatile Process process;
    private ProcessBuilder startCommand;
    private Path home;

    private PostgresServer(String host, int port, String adminUser, String adminPassword, String adminDatabase,
            Path tlsCertificate) {
        this.host = host;
        this.port = port;
        this.adminUser = adminUser;
        this.adminPassword = adminPassword;
        this.adminDatabase = adminDatabase;
        this.tlsCertificate = tlsCertificate;
        this.replicationPassword = randomSecret();
    }

    /**
     * The certificate the embedded server presents for TLS (self-signed, for localhost and
     * 127.0.0.1, so also its own CA); null for an external server.
     */
    public Path tlsCertificate() {
        return tlsCertificate;
    }

    /** The server of this JVM, started on first use. */
    public static synchronized PostgresServer shared() {
        if (shared == null) {
            String url = System.getenv(URL_VARIABLE);
            shared = url == null || url.isBlank() ? startEmbedded() : external(url);
            shared.createReplicationRole();
        }
        return shared;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String replicationPassword() {
        return replicationPassword;
    }

    /** The server's major version, from {@code server_version_num}. */
    public int majorVersion() {
        try (Connection c = admin(adminDatabase);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW server_version_num")) {
            rs.next();
            return Integer.parseInt(rs.getString(1)) / 10000;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A superuser connection to {@code database}. */
    public Connection admin(String database) throws SQLException {
        return connect(database, adminUser, adminPassword);
    }

    public Connection connect(String database, String user, String password) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        props.setProperty("sslmode", "disable");
        return DriverManager.getConnection(jdbcUrl(database), props);
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    /**
     * Creates an empty database named after {@code hint}, owned by the replication role. The
     * name is unique in this JVM; a leftover of an earlier run with the same name is dropped.
     */
    public PostgresDatabase createDatabase(String hint) {
        String name = (hint.replaceAll("[^A-Za-z0-9]", "_") + "_" + databases.incrementAndGet())
                .toLowerCase(Locale.ROOT);
        if (name.length() > 60) {
            name = name.substring(name.length() - 60);
        }
        try (Connection c = admin(adminDatabase);
                Statement s = c.createStatement()) {
            dropDatabase(s, name);
            s.execute("CREATE DATABASE " + name + " OWNER " + REPLICATION_USER);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create test database " + name, e);
        }
        return new PostgresDatabase(this, name);
    }

    void drop(String database) {
        try (Connection c = admin(adminDatabase);
                Statement s = c.createStatement()) {
            dropDatabase(s, database);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not drop test database " + database, e);
        }
    }

    private static void dropDatabase(Statement s, String name) throws SQLException {
        // Slots pin a database; a test may have left one behind on failure.
        s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                + "WHERE database = '" + name + "' AND NOT active");
        s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private void createReplicationRole() {
        try (Connection c = admin(adminDatabase);
                Statement s = c.createStatement()) {
            s.execute("SET password_encryption = 'scram-sha-256'");
            s.execute("DO $$ BEGIN "
                    + "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + REPLICATION_USER + "') THEN "
                    + "CREATE ROLE " + REPLICATION_USER + " LOGIN REPLICATION; END IF; END $$");
            s.execute("ALTER ROLE " + REPLICATION_USER + " LOGIN REPLICATION PASSWORD '" + replicationPassword + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create the replication role", e);
        }
    }

    private static PostgresServer external(String url) {
        String rest = url.replaceFirst("^jdbc:postgresql://", "");
        String hostPort = rest.substring(0, rest.indexOf('/'));
        String database = rest.substring(rest.indexOf('/') + 1).replaceFirst("\\?.*$", "");
        String host = hostPort.contains(":") ? hostPort.substring(0, hostPort.lastIndexOf(':')) : hostPort;
        int port = hostPort.contains(":") ? Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1)) : 5432;
        return new PostgresServer(
                host,
                port,
                requireEnv("RUSTCDC_TEST_POSTGRES_USER"),
                requireEnv("RUSTCDC_TEST_POSTGRES_PASSWORD"),
                database.isEmpty() ? "postgres" : database,
                null);
    }

    private static String requireEnv(String name) {
        String value = System.getenv(name);
        if (value == null) {
            throw new IllegalStateException(URL_VARIABLE + " is set, so " + name + " must be set too");
        }
        return value;
    }

    /**
     * A server of this test's own, started from the same binaries with {@code settings} ({@code
     * name=value}) on top of the usual ones, e.g. {@code wal_level=replica}; stopped when the JVM exits.
     */
    public static PostgresServer startPrivate(String... settings) {
        PostgresServer server = startEmbedded(settings);
        server.createReplicationRole();
        return server;
    }

    /** Whether tests run against an external server, where no private server can be started. */
    public static boolean external() {
        String url = System.getenv(URL_VARIABLE);
        return url != null && !url.isBlank();
    }

    private static PostgresServer startEmbedded(String... extraSettings) {
        Path binaries = PostgresBinaries.unpacked();
        Path home = LocalProcesses.serverDirectory("rustcdc-postgres-");
        Path data = home.resolve("data");
        Path passwordFile = home.resolve("password");
        String password = randomSecret();
        int port = LocalProcesses.freePort();
        TestCertificates.Pem tls = TestCertificates.selfSigned(home);
        try {
            Files.writeString(passwordFile, password + "\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(tls.privateKey, PosixFilePermissions.fromString("rw-------"));
            if (LocalProcesses.runningAsRoot()) {
                LocalProcesses.chown(passwordFile);
                LocalProcesses.chown(tls.privateKey);
                LocalProcesses.chown(tls.certificate);
            }
            LocalProcesses.run(
                    new ProcessBuilder(LocalProcesses.command("KILL", List.of(
                            binaries.resolve("bin/initdb").toString(),
                            "-D", data.toString(),
                            "-U", "postgres",
                            "--pwfile=" + passwordFile,
                            "--auth=scram-sha-256",
                            "-E", "UTF8",
                            "--locale=C",
                            "--no-sync"))),
                    120);
            Files.delete(passwordFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ProcessBuilder builder = new ProcessBuilder(LocalProcesses.command("INT", List.of(
                binaries.resolve("bin/postgres").toString(),
                "-D", data.toString(),
                "-p", Integer.toString(port),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "unix_socket_directories=" + home,
                "-c", "wal_level=logical",
                "-c", "max_wal_senders=20",
                "-c", "max_replication_slots=20",
                "-c", "synchronous_commit=on",
                "-c", "max_connections=300",
                "-c", "password_encryption=scram-sha-256",
                "-c", "ssl=on",
                "-c", "ssl_cert_file=" + tls.certificate,
                "-c", "ssl_key_file=" + tls.privateKey,
                // Durability of the test server itself does not matter; these only make tests faster.
                "-c", "fsync=off",
                "-c", "full_page_writes=off")));
        for (String setting : extraSettings) {
            builder.command().add("-c");
            builder.command().add(setting);
        }
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("postgres.log").toFile()));
        Process process = LocalProcesses.start(builder);
        PostgresServer server = new PostgresServer("127.0.0.1", port, "postgres", password, "postgres", tls.certificate);
        server.process = process;
        server.startCommand = builder;
        server.home = home;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server.process, home), "rustcdc-postgres-stop"));
        server.awaitStarted();
        return server;
    }

    /**
     * Stops this private server with a fast shutdown (SIGINT: sessions are ended, the WAL is flushed),
     * keeps it down for {@code down}, and starts it again on the same port and data directory. Only
     * for a server of a test's own ({@link #startPrivate}), never the shared one.
     */
    public void restart(Duration down) throws Exception {
        restart(down, false);
    }

    /**
     * As {@link #restart(Duration)}; with {@code immediate}, an immediate shutdown instead (SIGQUIT:
     * every process exits at once, without a checkpoint, and the next start recovers from the WAL, as
     * after a crash).
     */
    public synchronized void restart(Duration down, boolean immediate) throws Exception {
        shutdown(immediate);
        awaitStopped(Duration.ofSeconds(30));
        Thread.sleep(down.toMillis());
        start();
    }

    /**
     * Asks this private server to shut down, fast (SIGINT) or {@code immediate} (SIGQUIT), without
     * waiting for it: see {@link #awaitStopped} and {@link #start}.
     */
    public synchronized void shutdown(boolean immediate) throws Exception {
        if (startCommand == null || this == shared) {
            throw new IllegalStateException("Only a private embedded server may be restarted");
        }
        new ProcessBuilder("kill", immediate ? "-QUIT" : "-INT", Long.toString(process.pid())).start()
                .waitFor(5, TimeUnit.SECONDS);
    }

    /** Waits until the server {@link #shutdown} stopped; fails naming its log after {@code within}. */
    public void awaitStopped(Duration within) throws InterruptedException {
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("PostgreSQL did not stop within " + within + " (log: "
                    + home.resolve("postgres.log") + ")");
        }
    }

    /** Starts this private server again, once it stopped, on the same port and data directory. */
    public synchronized void start() {
        process = LocalProcesses.start(startCommand);
        awaitStarted();
    }

    private void awaitStarted() {
        PostgresServer server = this;
        Process process = this.process;
        Poll.until("PostgreSQL to accept connections on port " + port + " (log: " + home.resolve("postgres.log") + ")",
                Duration.ofSeconds(60),
                () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("PostgreSQL exited:\n"
                                + Files.readString(home.resolve("postgres.log")));
                    }
                    try (Connection ignored = server.admin("postgres")) {
                        return true;
                    }
                });
    }

    private static void stop(Process process, Path home) {
        try {
            // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to disconnect.
            new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException | InterruptedException e) {
            process.destroyForcibly();
        }
        LocalProcesses.deleteTree(home);
    }

    private static String randomSecret() {
        byte[] bytes = new byte[12];
        new SecureRandom().nextBytes(bytes);
        return "pw" + HexFormat.of().formatHex(bytes);
    }
}
