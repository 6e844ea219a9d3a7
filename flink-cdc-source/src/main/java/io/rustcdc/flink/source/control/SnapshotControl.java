package io.rustcdc.flink.source.control;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The client of a running source's snapshot control: writes requests into the source's control
 * directory ({@code scan.control.path}) and reads their results and the state readout there. It
 * talks to no process: the source's enumerator polls the directory. Thread-safe.
 *
 * <pre>{@code
 * SnapshotControl control = SnapshotControl.at("s3://bucket/flink/orders-job/control");
 * ControlResult r = control.awaitResult(control.request("public.orders"), Duration.ofMinutes(1));
 * control.pause();                      // every table being snapshotted
 * List<TableReadout> state = control.state();
 * }</pre>
 *
 * <p>Run as a program: {@code java -cp <the connector jar> io.rustcdc.flink.source.control.SnapshotControl
 * <control path> request|pause|resume|stop|state [schema.table ...] [--filter schema.table <condition>]...}.
 */
@PublicEvolving
public final class SnapshotControl {
    private static final Duration POLL = Duration.ofMillis(200);

    private final ControlDirectory directory;

    private SnapshotControl(ControlDirectory directory) {
        this.directory = directory;
    }

    /** The control of the source whose {@code scan.control.path} is {@code path} (a Flink path or URI). */
    public static SnapshotControl at(String path) {
        return new SnapshotControl(ControlDirectory.of(path));
    }

    /** Requests a snapshot of the tables ({@code schema.table}); returns the request's id. */
    public String request(String... tables) {
        return send(ControlRequest.Operation.REQUEST, tables);
    }

    /**
     * Requests a snapshot of the tables, each one named in {@code rowFilters} only of the rows its SQL
     * condition selects (e.g. {@code Map.of("public.orders", "tenant_id = 42")}); a table without one is
     * read with its configured filter, if any. The conditions are raw SQL, trusted like the job's
     * configuration: never build one from user data. Returns the request's id.
     */
    public String request(java.util.Map<String, String> rowFilters, String... tables) {
        return send(ControlRequest.request(Arrays.asList(tables), rowFilters));
    }

    /** Pauses the tables' snapshots, or every one under way when none is named; returns the request's id. */
    public String pause(String... tables) {
        return send(ControlRequest.Operation.PAUSE, tables);
    }

    public String resume(String... tables) {
        return send(ControlRequest.Operation.RESUME, tables);
    }

    public String stop(String... tables) {
        return send(ControlRequest.Operation.STOP, tables);
    }

    /** Writes {@code request} as it is (its id must be new); returns its id. */
    public String send(ControlRequest request) {
        directory.writeRequest(request);
        return request.id();
    }

    private String send(ControlRequest.Operation operation, String... tables) {
        return send(ControlRequest.of(operation, Arrays.asList(tables)));
    }

    /** The result of request {@code id}, once the source has answered it. */
    public Optional<ControlResult> result(String id) {
        return directory.readResult(id);
    }

    /**
     * Waits for the result of request {@code id}.
     *
     * @throws TimeoutException when none came in {@code timeout}: the source may be stopped, or still
     *     starting (it answers once it has started), or configured with another control path
     */
    public ControlResult awaitResult(String id, Duration timeout) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<ControlResult> r = result(id);
            if (r.isPresent()) {
                return r.get();
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("No source answered control request " + id + " in " + timeout + " at "
                        + directory.path() + ": is the job running, with 'scan.control.path' set to this path?");
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** The last state readout the source wrote (it rewrites it every poll); empty before it wrote one. */
    public List<TableReadout> state() {
        return directory.readState().orElse(List.of());
    }

    /**
     * The request of a command line's words after the control path: {@code request|pause|resume|stop
     * [schema.table ...] [--filter schema.table <condition>]...}; a filter's table is requested too.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static ControlRequest commandLine(String... words) {
        ControlRequest.Operation op;
        try {
            op = ControlRequest.Operation.valueOf(words[0].toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown operation '" + words[0] + "': request, pause, resume, stop or "
                    + "state");
        }
        java.util.List<String> tables = new java.util.ArrayList<>();
        java.util.Map<String, String> rowFilters = new java.util.LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            if (words[i].equals("--filter")) {
                if (i + 2 >= words.length) {
                    throw new IllegalArgumentException("--filter takes a table and a condition: --filter public.orders "
                            + "\"region = 'EU'\"");
                }
                rowFilters.put(words[i + 1], words[i + 2]);
                if (!tables.contains(words[i + 1])) {
                    tables.add(words[i + 1]);
                }
                i += 2;
            } else if (!tables.contains(words[i])) {
                tables.add(words[i]);
            }
        }
        if (rowFilters.isEmpty()) {
            return ControlRequest.of(op, tables);
        }
        if (op != ControlRequest.Operation.REQUEST) {
            throw new IllegalArgumentException("only request takes --filter");
        }
        return ControlRequest.request(tables, rowFilters);
    }

    /**
     * The command line: {@code <control path> request|pause|resume|stop|state [schema.table ...] [--filter
     * schema.table <condition>]...}; a filter's table is requested too.
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: SnapshotControl <control path> request|pause|resume|stop|state [schema.table ...]"
                    + " [--filter schema.table <condition>]...");
            System.exit(2);
        }
        SnapshotControl control = at(args[0]);
        if (args[1].equals("state")) {
            System.out.print(TableReadout.format(control.state()));
            return;
        }
        ControlRequest request;
        try {
            request = commandLine(Arrays.copyOfRange(args, 1, args.length));
        } catch (IllegalArgumentException | io.rustcdc.flink.source.CdcException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        ControlResult r = control.awaitResult(control.send(request), Duration.ofMinutes(2));
        System.out.print(r.format());
        System.exit(r.applied() ? 0 : 1);
    }
}
