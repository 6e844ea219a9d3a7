package io.rustcdc.flink.source.control;

import io.rustcdc.flink.source.CdcException;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * A source's control directory on a Flink {@link FileSystem} (local, HDFS, S3, ...): {@code
 * requests/<id>.request} written by {@link SnapshotControl}, {@code results/<id>.result} and {@code
 * state.tsv} written by the enumerator. Every file is written whole under a hidden temporary name
 * and then renamed, so a reader never sees half of one. Each call does blocking I/O: the enumerator
 * makes them only on its worker thread. Thread-safe (it holds no state but the path).
 */
@Internal
public final class ControlDirectory implements Serializable {
    private static final long serialVersionUID = 1L;
    static final String REQUEST_SUFFIX = ".request";
    static final String RESULT_SUFFIX = ".result";
    static final String STATE_FILE = "state.tsv";

    private final String root;

    private ControlDirectory(String root) {
        this.root = root;
    }

    /** The directory at {@code path} (a Flink path or URI: {@code file:///...}, {@code s3://...}, {@code hdfs://...}). */
    public static ControlDirectory of(String path) {
        if (path == null || path.isBlank()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The control path is empty: set "
                    + "'scan.control.path' (builder: controlPath) to a directory on a file system every JobManager "
                    + "can read, for example under the checkpoint storage");
        }
        return new ControlDirectory(path);
    }

    public String path() {
        return root;
    }

    /** A request file that is there and not in {@code skip}: parsed, or the reason it cannot be. */
    public record Pending(String id, ControlRequest request, String error) {}

    /** The request files there, oldest id first, leaving out the ids in {@code skip}. */
    public List<Pending> pendingRequests(Set<String> skip) {
        List<Pending> pending = new ArrayList<>();
        try {
            Path dir = new Path(root, "requests");
            FileSystem fs = dir.getFileSystem();
            if (!fs.exists(dir)) {
                return pending;
            }
            FileStatus[] files = fs.listStatus(dir);
            if (files == null) {
                return pending;
            }
            List<FileStatus> sorted = new ArrayList<>(List.of(files));
            sorted.sort(Comparator.comparing(f -> f.getPath().getName()));
            for (FileStatus f : sorted) {
                String name = f.getPath().getName();
                if (f.isDir() || name.startsWith(".") || !name.endsWith(REQUEST_SUFFIX)) {
                    continue;
                }
                String id = name.substring(0, name.length() - REQUEST_SUFFIX.length());
                if (skip.contains(id)) {
                    continue;
                }
                String text = read(fs, f.getPath());
                try {
                    pending.add(new Pending(id, ControlRequest.parse(id, text), null));
                } catch (CdcException e) {
                    pending.add(new Pending(id, null, e.getMessage()));
                }
            }
            return pending;
        } catch (IOException e) {
            throw failed("list the requests in", e);
        }
    }

    public void writeRequest(ControlRequest request) {
        write(new Path(new Path(root, "requests"), request.id() + REQUEST_SUFFIX), request.format());
    }

    /** Deletes a request file once its effect is in a completed checkpoint; no file is no error. */
    public void deleteRequest(String id) {
        Path file = new Path(new Path(root, "requests"), id + REQUEST_SUFFIX);
        try {
            file.getFileSystem().delete(file, false);
        } catch (IOException e) {
            throw failed("delete request " + id + " in", e);
        }
    }

    public void writeResult(ControlResult result) {
        write(new Path(new Path(root, "results"), result.id() + RESULT_SUFFIX), result.format());
    }

    public Optional<ControlResult> readResult(String id) {
        return readIfThere(new Path(new Path(root, "results"), id + RESULT_SUFFIX)).map(t -> ControlResult.parse(id, t));
    }

    public void writeState(List<TableReadout> tables) {
        write(new Path(root, STATE_FILE), TableReadout.format(tables));
    }

    /** The last state readout the enumerator wrote; empty before it wrote one. */
    public Optional<List<TableReadout>> readState() {
        return readIfThere(new Path(root, STATE_FILE)).map(TableReadout::parse);
    }

    /**
     * The file's text; empty when it is not there. A file being replaced where a rename does not replace a file
     * (HDFS, object stores: the old one is deleted first) may be gone between the check and the open: it is looked for
     * again; a reader there may also find no file at all for that moment (empty), as before the file was first written.
     */
    private Optional<String> readIfThere(Path file) {
        try {
            FileSystem fs = file.getFileSystem();
            for (int attempt = 1; ; attempt++) {
                if (!fs.exists(file)) {
                    return Optional.empty();
                }
                try {
                    return Optional.of(read(fs, file));
                } catch (FileNotFoundException replaced) {
                    if (attempt == 100) {
                        throw replaced;
                    }
                }
            }
        } catch (IOException e) {
            throw failed("read " + file.getName() + " in", e);
        }
    }

    private void write(Path file, String text) {
        Path temp = new Path(file.getParent(), "." + file.getName() + "." + UUID.randomUUID() + ".tmp");
        try {
            FileSystem fs = file.getFileSystem();
            fs.mkdirs(file.getParent());
            try (var out = fs.create(temp, FileSystem.WriteMode.NO_OVERWRITE)) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
            if ("file".equals(fs.getUri().getScheme())) {
                // replaced at once, so that a reader sees the old text or the new one, never no file
                java.nio.file.Path from = Paths.get(temp.toUri().getPath());
                try {
                    Files.move(from, Paths.get(file.toUri().getPath()), StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    Files.deleteIfExists(from);
                    throw e;
                }
                return;
            }
            // some (HDFS) do not rename over a file: it is deleted first, and a reader may miss it meanwhile
            if (fs.exists(file)) {
                fs.delete(file, false);
            }
            if (!fs.rename(temp, file)) {
                fs.delete(temp, false);
                throw new IOException("renaming " + temp + " to " + file + " failed");
            }
        } catch (IOException e) {
            throw failed("write " + file.getName() + " in", e);
        }
    }

    private static String read(FileSystem fs, Path file) throws IOException {
        try (InputStream in = fs.open(file)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private UncheckedIOException failed(String what, IOException e) {
        return new UncheckedIOException("Could not " + what + " the snapshot control directory " + root + ": "
                + e.getMessage(), e);
    }

    @Override
    public String toString() {
        return root;
    }
}
