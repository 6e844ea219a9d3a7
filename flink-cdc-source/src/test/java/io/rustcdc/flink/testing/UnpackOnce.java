package io.rustcdc.flink.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Unpacks server binaries once per machine into the temp folder, safely when several test JVMs
 * start at once, with every folder open to the unprivileged server user.
 */
public final class UnpackOnce {
    /** Writes the binaries into an empty folder. */
    @FunctionalInterface
    public interface Unpacker {
        void unpackInto(Path folder) throws IOException;
    }

    private UnpackOnce() {}

    /**
     * The folder {@code <tmp>/<family>/<key>}, filled by {@code unpacker} unless a complete copy
     * (one holding {@code marker}) is already there.
     */
    public static Path folder(String family, String key, String marker, Unpacker unpacker) {
        Path root = Path.of(System.getProperty("java.io.tmpdir"), family);
        Path target = root.resolve(key);
        try {
            Files.createDirectories(root);
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
            try (FileChannel lockFile = FileChannel.open(
                            root.resolve(key + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = lockFile.lock()) {
                if (!Files.exists(target.resolve(marker))) {
                    LocalProcesses.deleteTree(target);
                    Path staging = Files.createTempDirectory(root, key + "-staging");
                    unpacker.unpackInto(staging);
                    openToAll(staging);
                    Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not unpack server binaries into " + target, e);
        }
    }

    private static void openToAll(Path tree) throws IOException {
        try (var paths = Files.walk(tree)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
        }
    }
}
