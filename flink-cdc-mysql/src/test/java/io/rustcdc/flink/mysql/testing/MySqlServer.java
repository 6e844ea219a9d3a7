package io.rustcdc.flink.mysql.testing;

import io.rustcdc.flink.testing.LocalProcesses;
import io.rustcdc.flink.testing.Poll;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One MySQL-protocol server per test JVM, ready for binlog capture.
 *
 * <p>By default a MariaDB server is started from the binaries artifact on the classpath ({@link
 * MariaDbBinaries}) on a free loopback port, with grant tables on, {@code log_bin}, {@code
 * binlog_format=ROW}, {@code binlog_row_image=FULL}, {@code binlog_row_metadata=FULL}, GTIDs in
 * strict mode and a {@code server_id}, and stopped when the JVM exits. With {@code
 * -Drustcdc.mysql.flavor=mysql} an Oracle MySQL server is started instead, from Debian's packages
 * in a root of its own ({@link OracleMySqlRoot}), with the same settings ({@code gtid_mode=ON},
 * {@code enforce_gtid_consistency=ON}). Set {@code
 * RUSTCDC_TEST_MYSQL_URL} ({@code jdbc:mysql://host:port/}), {@code RUSTCDC_TEST_MYSQL_USER} and
 * {@code RUSTCDC_TEST_MYSQL_PASSWORD} (a user that can create users and databases) to use an
 * external MySQL 8 or MariaDB server instead.
 *
 * <p>Either way the server has a user {@link #CDC_USER} holding only the grants the MySQL
 * connector documents: {@code SELECT, REPLICATION SLAVE, REPLICATION CLIENT}. Thread-safe.
 */
public final class MySqlServer {
    public static final String CDC_USER = "rustcdc";
    /** What {@link #CDC_USER} is granted on {@code *.*}; the connector documents exactly these. */
    public static final String CDC_GRANTS = "SELECT, REPLICATION SLAVE, REPLICATION CLIENT";
    static final String URL_VARIABLE = "RUSTCDC_TEST_MYSQL_URL";
    /** Which server the harness starts when no external one is configured: {@code mariadb} (default) or {@code mysql}. */
    public static final String FLAVOR_PROPERTY = "rustcdc.mysql.flavor";

    private static MySqlServer shared;
    /** Each flavor's data folder, initialised once in this JVM and copied for each server it starts. */
    private static final Map<String, Path> INITIALISED = new HashMap<>();
    private static final String TLS_CERTIFICATE = "tls-cert.pem";
    private static final String TLS_KEY = "tls-key.pem";
    /** The password of Oracle MySQL's administrator in the data folders this JVM initialises. */
    private static final String INITIALISED_ROOT_PASSWORD = randomSecret();
    /** Servers of the other flavor than this JVM's, started once for the tests that run on both. */
    private static final Map<String, MySqlServer> OTHER_FLAVORS = new HashMap<>();

    private final String host;
    private final int port;
    private final String adminUser;
    private final String adminPassword;
    private final String cdcPassword = randomSecret();
    private final AtomicInteger databases = new AtomicInteger();
    /** The embedded server's process (replaced by a restart), the command that starts it, its log; null if external. */
    private AtomicReference<Process> process;
    private ProcessBuilder startCommand;
    private Path log;

    private MySqlServer(String host, int port, String adminUser, String adminPassword) {
        this.host = host;
        this.port = port;
        this.adminUser = adminUser;
        this.adminPassword = adminPassword;
    }

    /** The server of this JVM, started on first use. */
    public static synchronized MySqlServer shared() {
        if (shared == null) {
            String url = System.getenv(URL_VARIABLE);
            shared = url == null || url.isBlank() ? startEmbedded() : external(url);
            shared.createCdcUser();
        }
        return shared;
    }

    /**
     * A server of {@code flavor} ({@code mariadb} or {@code mysql}) shared by the tests of this JVM: the
     * JVM's {@link #shared()} server when it is of that flavor, else one started on first use; for tests
     * that run on both flavors in one JVM and need nothing of a server of their own.
     */
    public static synchronized MySqlServer shared(String flavor) {
        if (flavor.equals(System.getProperty(FLAVOR_PROPERTY, "mariadb"))) {
            return shared();
        }
        return OTHER_FLAVORS.computeIfAbsent(flavor, f -> startPrivate(f, List.of()));
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String cdcPassword() {
        return cdcPassword;
    }

    /** True for MariaDB, false for Oracle MySQL, read from {@code VERSION()}. */
    public boolean isMariaDb() {
        return value("SELECT VERSION()").contains("MariaDB");
    }

    /** {@code SHOW BINARY LOG STATUS} on Oracle MySQL 8.2+ (8.4 removed the older name), else {@code SHOW MASTER STATUS}. */
    public String binaryLogStatusStatement() {
        if (isMariaDb()) {
            return "SHOW MASTER STATUS";
        }
        String[] version = value("SELECT VERSION()").split("[.-]");
        int major = Integer.parseInt(version[0]);
        int minor = Integer.parseInt(version[1]);
        return major > 8 || major == 8 && minor >= 2 ? "SHOW BINARY LOG STATUS" : "SHOW MASTER STATUS";
    }

    /** An administrative connection, to {@code database} or to none when it is empty. */
    public Connection admin(String database) throws SQLException {
        return connect(database, adminUser, adminPassword);
    }

    public Connection connect(String database, String user, String password) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), user, password);
    }

    public String jdbcUrl(String database) {
        return "jdbc:mariadb://" + host + ":" + port + "/" + database + "?allowPublicKeyRetrieval=true";
    }

    /** Creates an empty database named after {@code hint}; a leftover with that name is dropped. */
    public MySqlDatabase createDatabase(String hint) {
        String name = (hint.replaceAll("[^A-Za-z0-9]", "_") + "_" + databases.incrementAndGet())
                .toLowerCase(Locale.ROOT);
        if (name.length() > 60) {
            name = name.substring(name.length() - 60);
        }
        try (Connection c = admin("");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS `" + name + "`");
            s.execute("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create test database " + name, e);
        }
        return new MySqlDatabase(this, name);
    }

    void drop(String database) {
        try (Connection c = admin("");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS `" + database + "`");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not drop test database " + database, e);
        }
    }

    private void createCdcUser() {
        try (Connection c = admin("");
                Statement s = c.createStatement()) {
            s.execute("DROP USER IF EXISTS '" + CDC_USER + "'@'%'");
            s.execute("CREATE USER '" + CDC_USER + "'@'%' IDENTIFIED BY '" + cdcPassword + "'");
            s.execute("GRANT " + CDC_GRANTS + " ON *.* TO '" + CDC_USER + "'@'%'");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create the CDC user", e);
        }
    }

    private static MySqlServer external(String url) {
        String rest = url.replaceFirst("^jdbc:(mysql|mariadb)://", "");
        String hostPort = rest.contains("/") ? rest.substring(0, rest.indexOf('/')) : rest;
        String host = hostPort.contains(":") ? hostPort.substring(0, hostPort.lastIndexOf(':')) : hostPort;
        int port = hostPort.contains(":") ? Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1)) : 3306;
        return new MySqlServer(host, port, requireEnv("RUSTCDC_TEST_MYSQL_USER"), requireEnv("RUSTCDC_TEST_MYSQL_PASSWORD"));
    }

    private static String requireEnv(String name) {
        String value = System.getenv(name);
        if (value == null) {
            throw new IllegalStateException(URL_VARIABLE + " is set, so " + name + " must be set too");
        }
        return value;
    }

    /** Whether the tests run against a server given by {@value #URL_VARIABLE}. */
    public static boolean external() {
        String url = System.getenv(URL_VARIABLE);
        return url != null && !url.isBlank();
    }

    /**
     * A server of this test's own, from the same binaries, with {@code extraArgs} after the usual
     * ones (a later option wins, e.g. {@code --skip-log-bin}); stopped when the JVM exits. Oracle MySQL given
     * {@code --lower-case-table-names=N} starts from a data folder initialised with it.
     */
    public static MySqlServer startPrivate(String... extraArgs) {
        MySqlServer server = startEmbedded(List.of(extraArgs));
        server.createCdcUser();
        return server;
    }

    /**
     * A server of this test's own that replicates {@code primary} by GTID from the primary's current
     * position on: binlog files of another name ({@code replica-bin}), so positions of the two
     * servers differ in file and offset and agree only in GTIDs. Its CDC user is its own. {@code
     * extraArgs} come after the usual ones.
     */
    public static MySqlServer startReplicaOf(MySqlServer primary, int serverId, String... extraArgs) {
        boolean mariaDb = primary.isMariaDb();
        List<String> args = new java.util.ArrayList<>(List.of("--server-id=" + serverId, "--log-bin=replica-bin"));
        args.addAll(List.of(extraArgs));
        MySqlServer replica = startPrivate(args.toArray(new String[0]));
        String from = primary.value(mariaDb ? "SELECT @@gtid_binlog_pos" : "SELECT @@GLOBAL.gtid_executed");
        try (Connection c = replica.admin("");
                Statement s = c.createStatement()) {
            if (mariaDb) {
                s.execute("RESET MASTER"); // forget the replica's own set-up transactions
                s.execute("SET GLOBAL gtid_slave_pos = '" + from + "'");
                s.execute("CHANGE MASTER TO MASTER_HOST = '" + primary.host + "', MASTER_PORT = " + primary.port
                        + ", MASTER_USER = '" + CDC_USER + "', MASTER_PASSWORD = '" + primary.cdcPassword
                        + "', MASTER_USE_GTID = slave_pos");
                s.execute("START SLAVE");
            } else {
                s.execute("RESET BINARY LOGS AND GTIDS"); // forget the replica's own set-up transactions
                s.execute("SET GLOBAL gtid_purged = '" + from + "'"); // start at the primary's current position
                // caching_sha2_password sends the password only over TLS (or RSA): the replica connects with TLS.
                s.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST = '" + primary.host + "', SOURCE_PORT = "
                        + primary.port + ", SOURCE_USER = '" + CDC_USER + "', SOURCE_PASSWORD = '"
                        + primary.cdcPassword + "', SOURCE_AUTO_POSITION = 1, SOURCE_SSL = 1");
                s.execute("START REPLICA");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not make a replica of port " + primary.port, e);
        }
        return replica;
    }

    /** Waits until this replica applied everything {@code primary} has written so far. */
    public void catchUpWith(MySqlServer primary) {
        if (primary.isMariaDb()) {
            String target = primary.value("SELECT @@gtid_binlog_pos");
            String reached = value("SELECT MASTER_GTID_WAIT('" + target + "', 60)");
            if (!"0".equals(reached)) {
                throw new IllegalStateException("The replica on port " + port + " did not reach " + target + ": "
                        + value("SELECT @@gtid_slave_pos"));
            }
        } else {
            String target = primary.value("SELECT @@GLOBAL.gtid_executed");
            String reached = value("SELECT WAIT_FOR_EXECUTED_GTID_SET('" + target + "', 60)");
            if (!"0".equals(reached)) {
                throw new IllegalStateException("The replica on port " + port + " did not reach " + target + ": "
                        + value("SELECT @@GLOBAL.gtid_executed"));
            }
        }
    }

    /** A handle to the existing database {@code name} (e.g. one a replica received from its primary). */
    public MySqlDatabase database(String name) {
        return new MySqlDatabase(this, name);
    }

    /** The single value {@code sql} returns, as text, run as the administrator. */
    public String value(String sql) {
        try (Connection c = admin("");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on port " + port + ": " + e.getMessage(), e);
        }
    }

    private static MySqlServer startEmbedded() {
        return startEmbedded(List.of());
    }

    /**
     * A server of this test's own of {@code flavor} ({@code mariadb} or {@code mysql}) whatever {@value
     * #FLAVOR_PROPERTY} says, for a test that runs on both flavors in one JVM; stopped when the JVM exits.
     */
    public static MySqlServer startPrivate(String flavor, List<String> extraArgs) {
        MySqlServer server = startEmbedded(flavor, extraArgs);
        server.createCdcUser();
        return server;
    }

    private static MySqlServer startEmbedded(List<String> extraArgs) {
        return startEmbedded(System.getProperty(FLAVOR_PROPERTY, "mariadb"), extraArgs);
    }

    private static MySqlServer startEmbedded(String flavorName, List<String> extraArgs) {
        String flavor = flavorName.trim().toLowerCase(Locale.ROOT);
        switch (flavor) {
            case "mariadb":
                return startMariaDb(extraArgs);
            case "mysql":
                return startOracleMySql(extraArgs);
            default:
                throw new IllegalArgumentException("-D" + FLAVOR_PROPERTY + "=" + flavor
                        + ": expected mariadb or mysql");
        }
    }

    private static MySqlServer startMariaDb(List<String> extraArgs) {
        Path base = MariaDbBinaries.unpacked();
        Path home = LocalProcesses.serverDirectory("rustcdc-mariadb-");
        Path data = home.resolve("data");
        Path template = copyInitialised("mariadb", data, () -> {
            Path dir = LocalProcesses.serverDirectory("rustcdc-mariadb-template-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> LocalProcesses.deleteTree(dir)));
            LocalProcesses.run(
                    new ProcessBuilder(LocalProcesses.command("KILL", List.of(
                            "/bin/sh", base.resolve("scripts/mariadb-install-db").toString(),
                            "--no-defaults",
                            "--basedir=" + base,
                            "--datadir=" + dir.resolve("data"),
                            "--auth-root-authentication-method=normal",
                            "--skip-test-db",
                            "--skip-name-resolve"))),
                    120);
            writeTlsKeyAndCertificate(dir);
            return dir.resolve("data");
        });
        int port = LocalProcesses.freePort();
        ProcessBuilder builder = new ProcessBuilder(LocalProcesses.command("TERM", List.of(
                base.resolve("bin/mariadbd").toString(),
                "--no-defaults",
                "--basedir=" + base,
                "--datadir=" + data,
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + home.resolve("mariadb.sock"),
                "--skip-name-resolve",
                "--log-bin=mariadb-bin",
                "--binlog-format=ROW",
                "--binlog-row-image=FULL",
                "--binlog-row-metadata=FULL",
                "--server-id=1",
                "--gtid-strict-mode=ON",
                "--log-slave-updates",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
                "--max-connections=300",
                // Durability of the test server itself does not matter; these only make tests faster.
                "--innodb-flush-log-at-trx-commit=2",
                "--sync-binlog=0",
                "--innodb-buffer-pool-size=128M")));
        Path tls = template.getParent();
        if (Files.exists(tls.resolve(TLS_CERTIFICATE))) {
            builder.command().add("--ssl-cert=" + tls.resolve(TLS_CERTIFICATE));
            builder.command().add("--ssl-key=" + tls.resolve(TLS_KEY));
        }
        builder.command().addAll(extraArgs);
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("mariadb.log").toFile()));
        Process process = LocalProcesses.start(builder);
        AtomicReference<Process> running = new AtomicReference<>(process);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(running.get(), home), "rustcdc-mariadb-stop"));

        // mariadb-install-db creates root@127.0.0.1 without a password; give it one at once.
        MySqlServer bootstrap = new MySqlServer("127.0.0.1", port, "root", "");
        Poll.until("MariaDB to accept connections on port " + port + " (log: " + home.resolve("mariadb.log") + ")",
                Duration.ofSeconds(60),
                () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("MariaDB exited:\n" + Files.readString(home.resolve("mariadb.log")));
                    }
                    try (Connection ignored = bootstrap.admin("")) {
                        return true;
                    }
                });
        String password = randomSecret();
        try (Connection c = bootstrap.admin("");
                Statement s = c.createStatement()) {
            s.execute("ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '" + password + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not set the MariaDB admin password", e);
        }
        MySqlServer server = new MySqlServer("127.0.0.1", port, "root", password);
        server.embedded(running, builder, home.resolve("mariadb.log"));
        return server;
    }

    /**
     * Oracle MySQL from the Debian root of {@link OracleMySqlRoot}: {@code mysqld} runs in it with
     * {@code chroot}, as the unprivileged user, with its data in a folder of its own under the root's
     * {@code /var/tmp} (the folder is named after this JVM's pid, so a killed JVM's leftovers are
     * recognised and removed by the next start).
     */
    private static MySqlServer startOracleMySql(List<String> extraArgs) {
        Path root = OracleMySqlRoot.get();
        Path instances = OracleMySqlRoot.instances(root);
        removeLeftovers(instances);
        Path home;
        try {
            home = Files.createTempDirectory(instances, "rustcdc-mysql-" + ProcessHandle.current().pid() + "-");
            Files.setPosixFilePermissions(home, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            LocalProcesses.chown(home);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        String inside = "/" + root.relativize(home); // the folder as mysqld sees it
        // Oracle MySQL takes lower_case_table_names only when its data folder is initialised (and refuses to start
        // with another): a server given it gets a data folder initialised with it, not the shared template.
        String nameCase = extraArgs.stream().filter(a -> a.startsWith("--lower-case-table-names="))
                .reduce((first, last) -> last).orElse("");
        copyInitialised("mysql" + nameCase, home.resolve("data"), () -> initialiseOracleMySql(root, instances, nameCase));
        String password = INITIALISED_ROOT_PASSWORD;
        int port = LocalProcesses.freePort();
        List<String> args = new java.util.ArrayList<>(List.of(
                "/usr/sbin/mysqld",
                "--no-defaults",
                "--datadir=" + inside + "/data",
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + inside + "/mysqld.sock",
                "--pid-file=" + inside + "/mysqld.pid",
                "--mysqlx=OFF",
                "--skip-name-resolve",
                "--secure-file-priv=" + inside,
                "--log-bin=mysql-bin",
                "--binlog-format=ROW",
                "--binlog-row-image=FULL",
                "--binlog-row-metadata=FULL",
                "--gtid-mode=ON",
                "--enforce-gtid-consistency=ON",
                "--server-id=1",
                "--log-replica-updates=ON",
                "--character-set-server=utf8mb4",
                "--max-connections=300",
                // Durability of the test server itself does not matter; these only make tests faster.
                "--innodb-flush-log-at-trx-commit=2",
                "--sync-binlog=0",
                "--innodb-buffer-pool-size=128M"));
        for (String arg : extraArgs) {
            // MySQL 8.0.26 renamed log_slave_updates; the old name is gone from MySQL 9.
            args.add(arg.replaceFirst("^--log-slave-updates", "--log-replica-updates"));
        }
        Path log = home.resolve("mysqld.log");
        ProcessBuilder builder = new ProcessBuilder(inRoot(root, "TERM", args));
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process process = LocalProcesses.start(builder);
        AtomicReference<Process> running = new AtomicReference<>(process);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(running.get(), home), "rustcdc-mysql-stop"));

        MySqlServer server = new MySqlServer("127.0.0.1", port, "root", password);
        server.embedded(running, builder, log);
        Poll.until("Oracle MySQL to accept connections on port " + port + " (log: " + log + ")",
                Duration.ofSeconds(90),
                () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("Oracle MySQL exited:\n" + Files.readString(log));
                    }
                    try (Connection ignored = server.admin("")) {
                        return true;
                    }
                });
        return server;
    }

    private void embedded(AtomicReference<Process> running, ProcessBuilder command, Path logFile) {
        this.process = running;
        this.startCommand = command;
        this.log = logFile;
    }

    /**
     * Stops this private server, cleanly (SIGTERM: the server ends its sessions and writes its binlog
     * and tables out) or, with {@code crash}, by SIGKILL (the server recovers its binlog and InnoDB at
     * the next start), keeps it down for {@code down}, and starts it again on the same port and data
     * directory with the same options. Only for a server of a test's own ({@link #startPrivate}).
     */
    public synchronized void restart(Duration down, boolean crash) throws Exception {
        if (startCommand == null || this == shared) {
            throw new IllegalStateException("Only a private embedded server may be restarted");
        }
        Process old = process.get();
        if (crash) {
            old.destroyForcibly();
        } else {
            old.destroy();
        }
        if (!old.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The server on port " + port + " did not stop within 60 s (log: " + log + ")");
        }
        Thread.sleep(down.toMillis());
        Process started = LocalProcesses.start(startCommand);
        process.set(started);
        Poll.until("the server to accept connections again on port " + port + " (log: " + log + ")",
                Duration.ofSeconds(90),
                () -> {
                    if (!started.isAlive()) {
                        throw new IllegalStateException("The server exited:\n" + Files.readString(log));
                    }
                    try (Connection ignored = admin("")) {
                        return true;
                    }
                });
    }

    /**
     * {@code args} run in {@code root} with {@code chroot}, as the unprivileged user, with a
     * parent-death signal set after the user changed (a change of user clears it).
     */
    private static List<String> inRoot(Path root, String signal, List<String> args) {
        if (!LocalProcesses.runningAsRoot()) {
            throw new IllegalStateException("Oracle MySQL runs in a chroot, which needs root: run the build as root"
                    + " (as CI does), or leave out the Oracle MySQL execution (-Doracle-mysql.skip), or set "
                    + URL_VARIABLE + " to use a server of your own");
        }
        List<String> command = new java.util.ArrayList<>(List.of(
                "/usr/sbin/chroot", root.toString(),
                "/usr/bin/setpriv",
                "--reuid=" + LocalProcesses.UNPRIVILEGED_ID,
                "--regid=" + LocalProcesses.UNPRIVILEGED_ID,
                "--clear-groups",
                "--pdeathsig=" + signal,
                "--"));
        command.addAll(args);
        return command;
    }

    /**
     * Copies into {@code data} the data folder that {@code initialise} made once in this JVM for {@code flavor}
     * (initialising takes seconds, Oracle MySQL's nearly ten); without its {@code auto.cnf}, so that each
     * server makes its own server_uuid. Returns the data folder copied.
     */
    private static Path copyInitialised(String flavor, Path data, Supplier<Path> initialise) {
        Path template;
        synchronized (INITIALISED) {
            template = INITIALISED.computeIfAbsent(flavor, f -> initialise.get());
        }
        LocalProcesses.run(new ProcessBuilder("cp", "-a", template.toString(), data.toString()), 120);
        try {
            Files.deleteIfExists(data.resolve("auto.cnf"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return template;
    }

    /**
     * A TLS key and self-signed certificate for the MariaDB servers of this JVM, made with {@code openssl} when
     * there is one: without them MariaDB 11.4 makes its own at every start, 5 to 15 s of CPU here. Without
     * {@code openssl} the servers make their own, as before.
     */
    private static void writeTlsKeyAndCertificate(Path dir) {
        try {
            Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650",
                    "-subj", "/CN=rustcdc-test", "-keyout", dir.resolve(TLS_KEY).toString(),
                    "-out", dir.resolve(TLS_CERTIFICATE).toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                LocalProcesses.chown(dir.resolve(TLS_KEY));
                LocalProcesses.chown(dir.resolve(TLS_CERTIFICATE));
                return;
            }
            p.destroyForcibly();
        } catch (IOException e) {
            // no openssl
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Files.deleteIfExists(dir.resolve(TLS_CERTIFICATE));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * An Oracle MySQL data folder in the root, initialised with the administrator {@code root@127.0.0.1}
     * (without a binlog, so no GTIDs) and with {@code nameCase} ({@code --lower-case-table-names=N}) unless it is
     * empty; removed when the JVM exits, or by the next start after a killed one.
     */
    private static Path initialiseOracleMySql(Path root, Path instances, String nameCase) {
        Path template = instances.resolve("rustcdc-mysql-" + ProcessHandle.current().pid() + "-template"
                + nameCase.replaceAll("[^a-z0-9]+", "-"));
        Path initFile = template.resolve("init.sql");
        try {
            Files.createDirectories(template);
            Files.setPosixFilePermissions(template, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            LocalProcesses.chown(template);
            Files.writeString(initFile, "CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY '" + INITIALISED_ROOT_PASSWORD
                    + "';\nGRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n");
            LocalProcesses.chown(initFile);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LocalProcesses.deleteTree(template)));
        String inside = "/" + root.relativize(template);
        List<String> args = new java.util.ArrayList<>(List.of(
                "/usr/sbin/mysqld",
                "--no-defaults",
                "--initialize-insecure",
                "--datadir=" + inside + "/data",
                "--init-file=" + inside + "/init.sql",
                "--log-error-verbosity=2"));
        if (!nameCase.isEmpty()) {
            args.add(nameCase);
        }
        LocalProcesses.run(new ProcessBuilder(inRoot(root, "KILL", args)), 120);
        try {
            Files.delete(initFile);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return template.resolve("data");
    }

    /** Deletes the data folders of servers whose JVM is gone (killed before its shutdown hook ran). */
    private static void removeLeftovers(Path instances) {
        try (java.nio.file.DirectoryStream<Path> dirs = Files.newDirectoryStream(instances, "rustcdc-mysql-*")) {
            for (Path dir : dirs) {
                String[] parts = dir.getFileName().toString().split("-");
                long pid;
                try {
                    pid = Long.parseLong(parts[2]);
                } catch (RuntimeException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                LocalProcesses.deleteTree(dir);
            }
        } catch (IOException ignored) {
            // best effort
        }
    }

    private static void stop(Process process, Path home) {
        process.destroy(); // SIGTERM: a clean shutdown
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
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
