package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.control.ControlRequest;
import io.rustcdc.flink.source.control.SnapshotControl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Control requests that the enumerator's next poll of a local control directory takes together: written
 * by {@link SnapshotControl} into a hidden directory beside {@code requests/}, which then replaces it in
 * one rename once it is absent or empty (every request before handled, its file deleted). Requests sent
 * one by one could fall on both sides of a poll.
 */
public final class ControlBatch {
    private ControlBatch() {}

    public static void send(Path control, ControlRequest... requests) throws IOException {
        Path staging = Files.createTempDirectory(control, ".batch");
        SnapshotControl stagingClient = SnapshotControl.at(staging.toUri().toString());
        for (ControlRequest r : requests) {
            stagingClient.send(r);
        }
        Path target = control.resolve("requests");
        Poll.until("no request file left in " + target, Duration.ofMinutes(1), () -> isAbsentOrEmpty(target));
        // rename(2) replaces an empty directory in one step
        Files.move(staging.resolve("requests"), target, StandardCopyOption.ATOMIC_MOVE);
        Files.delete(staging);
    }

    private static boolean isAbsentOrEmpty(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return true;
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.findAny().isEmpty();
        }
    }
}
