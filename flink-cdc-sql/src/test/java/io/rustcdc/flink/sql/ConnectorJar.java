package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/** A shaded SQL connector jar the build made: its entries, its text files, a class loader of its own. */
final class ConnectorJar {
    final Path path;
    final List<String> entries = new ArrayList<>();

    ConnectorJar(String name) throws IOException {
        try (DirectoryStream<Path> found =
                Files.newDirectoryStream(Path.of("target"), "flink-sql-connector-" + name + "-*.jar")) {
            path = found.iterator().next();
        }
        try (JarFile file = new JarFile(path.toFile())) {
            file.stream().map(JarEntry::getName).forEach(entries::add);
        }
    }

    String text(String entry) throws IOException {
        try (JarFile file = new JarFile(path.toFile())) {
            return new String(file.getInputStream(file.getEntry(entry)).readAllBytes(), StandardCharsets.UTF_8).trim();
        }
    }

    /** Only the platform's classes besides the jar's: what Flink's lib/ would add is not needed. */
    URLClassLoader isolatedLoader() throws IOException {
        return new URLClassLoader(new URL[] {path.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    }

    /** Every class is ours or relocated under io/rustcdc/flink/shaded; nothing clashes with Flink or a job's libraries. */
    void assertNothingClashes() {
        assertThat(entries).filteredOn(e -> e.endsWith(".class")).allMatch(e -> e.startsWith("io/rustcdc/flink/"),
                "every class is ours or relocated under io/rustcdc/flink/shaded");
        assertThat(entries).noneMatch(e -> e.startsWith("org/apache/flink/") || e.startsWith("org/postgresql/")
                || e.startsWith("com/fasterxml/") || e.startsWith("META-INF/versions/") || e.startsWith("org/slf4j/")
                || e.startsWith("org/apache/logging/") || e.startsWith("com/github/shyiko/") || e.startsWith("io/debezium/")
                || e.startsWith("com/microsoft/") || e.startsWith("org/mariadb/"));
    }
}
