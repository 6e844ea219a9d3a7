package io.rustcdc.flink.mysql.testing;

import io.rustcdc.flink.testing.LocalProcesses;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A Debian unstable ("sid") root holding Oracle MySQL from Debian's {@code mysql-server-core}
 * package, for the tests' Oracle MySQL flavor. Oracle MySQL needs a newer C library than the
 * build machines have, so it runs with {@code chroot} in a root of its own.
 *
 * <p>The root is built once per machine with {@code debootstrap --variant=minbase sid} from the
 * Debian mirror this machine's apt already uses (read from {@code /etc/apt/sources.list} and
 * {@code /etc/apt/sources.list.d/}, or {@value #MIRROR_PROPERTY}), into a staging folder that is
 * renamed into place when complete, under a file lock so that concurrent test JVMs build it once.
 * It lives in {@code ~/.cache/rustcdc/mysql-sid-root} (or {@value #ROOT_PROPERTY}), outside the
 * clone, so {@code mvn clean} keeps it. Building it needs root (as CI runs), the network and
 * {@code debootstrap}, which is installed with apt when missing.
 */
final class OracleMySqlRoot {
    static final String ROOT_PROPERTY = "rustcdc.mysql.root";
    static final String MIRROR_PROPERTY = "rustcdc.mysql.debian-mirror";
    /** Present in a complete root only; holds the installed {@code mysqld --version}. */
    private static final String MARKER = "rustcdc-mysql-root-complete";
    private static final List<String> PACKAGES = List.of("mysql-server-core", "mysql-client-core");

    private static Path built;

    private OracleMySqlRoot() {}

    /** The root, built on first use. */
    static synchronized Path get() {
        if (built == null) {
            built = build();
        }
        return built;
    }

    /** The folder inside the root where server instances keep their data ({@code /var/tmp}). */
    static Path instances(Path root) {
        return root.resolve("var/tmp");
    }

    private static Path build() {
        Path target = Path.of(System.getProperty(ROOT_PROPERTY,
                System.getProperty("user.home") + "/.cache/rustcdc/mysql-sid-root"));
        Path parent = target.toAbsolutePath().getParent();
        if (Files.exists(target.resolve(MARKER))) {
            return target;
        }
        if (!LocalProcesses.runningAsRoot()) {
            throw failure("building it needs root (debootstrap and chroot)", "run the build as root, as CI does");
        }
        try {
            Files.createDirectories(parent);
            try (FileChannel lockFile = FileChannel.open(parent.resolve(target.getFileName() + ".lock"),
                            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = lockFile.lock()) {
                if (Files.exists(target.resolve(MARKER))) {
                    return target; // another JVM built it while this one waited
                }
                // Under the lock, any staging folder or incomplete root is a leftover of a killed build.
                try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(parent, target.getFileName() + "*")) {
                    for (Path p : leftovers) {
                        if (Files.isDirectory(p)) {
                            LocalProcesses.deleteTree(p);
                        }
                    }
                }
                Path staging = parent.resolve(target.getFileName() + ".staging-" + ProcessHandle.current().pid());
                try {
                    buildInto(staging);
                } catch (RuntimeException e) {
                    LocalProcesses.deleteTree(staging);
                    throw e;
                }
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not build the Oracle MySQL root " + target, e);
        }
    }

    /** debootstrap, then the MySQL packages, into {@code staging}; the marker last. */
    private static void buildInto(Path staging) throws IOException {
        String mirror = debianMirror();
        ensureDebootstrap();
        run(900, "debootstrap",
                List.of("debootstrap", "--variant=minbase", "sid", staging.toString(), mirror),
                "check the network and the Debian mirror in /etc/apt/sources.list*, or set -D"
                        + MIRROR_PROPERTY + "=<a Debian mirror URL>");
        List<String> install = new ArrayList<>(List.of("chroot", staging.toString(),
                "apt-get", "install", "-y", "--no-install-recommends"));
        install.addAll(PACKAGES);
        run(600, "installing " + PACKAGES + " in the root", install, "check the network");
        run(120, "apt-get clean in the root", List.of("chroot", staging.toString(), "apt-get", "clean"), "");
        String version = run(60, "mysqld --version in the root",
                List.of("chroot", staging.toString(), "/usr/sbin/mysqld", "--version"), "");
        Files.writeString(staging.resolve(MARKER), version);
    }

    /** Installs debootstrap with apt when it is missing (running as root). */
    private static void ensureDebootstrap() {
        if (onPath("debootstrap")) {
            return;
        }
        String hint = "install debootstrap yourself (apt-get install debootstrap)";
        try {
            run(600, "apt-get install debootstrap", List.of("apt-get", "install", "-y", "debootstrap"), hint);
        } catch (IllegalStateException first) {
            run(600, "apt-get update", List.of("apt-get", "update"), hint);
            run(600, "apt-get install debootstrap", List.of("apt-get", "install", "-y", "debootstrap"), hint);
        }
    }

    private static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        return Stream.of(path.split(":")).anyMatch(dir -> new File(dir, program).canExecute());
    }

    /**
     * The Debian archive this machine's apt uses: the first {@code deb} source whose URI ends in
     * {@code /debian}, from one-line {@code .list} files or deb822 {@code .sources} files.
     */
    static String debianMirror() {
        String configured = System.getProperty(MIRROR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        List<Path> files = new ArrayList<>();
        files.add(Path.of("/etc/apt/sources.list"));
        try (Stream<Path> listed = Files.list(Path.of("/etc/apt/sources.list.d"))) {
            listed.filter(p -> p.toString().endsWith(".list") || p.toString().endsWith(".sources"))
                    .sorted().forEach(files::add);
        } catch (IOException ignored) {
            // no such folder
        }
        for (Path file : files) {
            Optional<String> mirror = mirrorIn(file);
            if (mirror.isPresent()) {
                return mirror.get();
            }
        }
        throw failure("no Debian mirror found in /etc/apt/sources.list or /etc/apt/sources.list.d/",
                "set -D" + MIRROR_PROPERTY + "=<a Debian mirror URL>");
    }

    private static Optional<String> mirrorIn(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            return Optional.empty();
        }
        boolean deb822 = file.toString().endsWith(".sources");
        List<String> uris = new ArrayList<>();
        List<String> stanzaTypes = new ArrayList<>();
        List<String> stanzaUris = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.startsWith("#")) {
                continue;
            }
            if (deb822) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("types:")) {
                    stanzaTypes.addAll(List.of(line.substring(6).trim().split("\\s+")));
                } else if (lower.startsWith("uris:")) {
                    stanzaUris.addAll(List.of(line.substring(5).trim().split("\\s+")));
                } else if (line.isEmpty()) { // end of a stanza
                    if (stanzaTypes.contains("deb")) {
                        uris.addAll(stanzaUris);
                    }
                    stanzaTypes.clear();
                    stanzaUris.clear();
                }
            } else if (line.startsWith("deb ")) {
                String[] words = line.substring(4).trim().split("\\s+");
                int i = 0;
                if (words[0].startsWith("[")) { // options such as [arch=amd64 signed-by=...]
                    while (i < words.length && !words[i].endsWith("]")) {
                        i++;
                    }
                    i++;
                }
                if (i < words.length) {
                    uris.add(words[i]);
                }
            }
        }
        if (stanzaTypes.contains("deb")) {
            uris.addAll(stanzaUris);
        }
        return uris.stream().filter(OracleMySqlRoot::isDebianArchive).findFirst();
    }

    private static boolean isDebianArchive(String uri) {
        try {
            String path = URI.create(uri).getPath();
            return (uri.startsWith("http://") || uri.startsWith("https://")) && path != null
                    && path.replaceAll("/+$", "").endsWith("/debian");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String run(int timeoutSeconds, String what, List<String> command, String remedy) {
        try {
            return LocalProcesses.run(new ProcessBuilder(command), timeoutSeconds);
        } catch (IllegalStateException e) {
            throw failure(what + " failed: " + e.getMessage(), remedy);
        }
    }

    private static IllegalStateException failure(String what, String remedy) {
        return new IllegalStateException("Could not build the Oracle MySQL test server's root (Debian sid with "
                + PACKAGES + "): " + what + (remedy.isEmpty() ? "" : ". Fix: " + remedy)
                + ". Or leave out the build's Oracle MySQL execution (-Doracle-mysql.skip), or run the tests against a"
                + " server of your own (" + MySqlServer.URL_VARIABLE + ", RUSTCDC_TEST_MYSQL_USER, "
                + "RUSTCDC_TEST_MYSQL_PASSWORD).");
    }
}
