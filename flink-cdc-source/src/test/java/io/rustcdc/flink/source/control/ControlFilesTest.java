package io.rustcdc.flink.source.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control directory's files: requests, results and the state readout, written whole and read back. */
class ControlFilesTest {
    @TempDir Path dir;

    @Test
    void aRequestReadsBackAsItWasWritten() {
        ControlRequest r = ControlRequest.of("r-1", ControlRequest.Operation.REQUEST, List.of("public.a", "public.b"));
        assertThat(ControlRequest.parse("r-1", r.format())).isEqualTo(r);
        assertThat(ControlRequest.parse("p", "# a comment\n operation = Pause \n\ntables=\n").tables()).isEmpty();
        assertThat(ControlRequest.of(ControlRequest.Operation.STOP, List.of()).id()).matches("[0-9]+-[0-9a-f]{12}");
    }

    @Test
    void aRequestsRowFiltersReadBackAsWritten() {
        ControlRequest r = ControlRequest.request("r-2", List.of("public.a", "public.b"),
                Map.of("public.b", "region = 'EU' AND note LIKE '%=%'"));
        assertThat(r.format()).contains("filter.public.b=region = 'EU' AND note LIKE '%=%'\n");
        ControlRequest read = ControlRequest.parse("r-2", r.format());
        assertThat(read).isEqualTo(r);
        assertThat(read.rowFilters()).containsExactly(Map.entry("public.b", "region = 'EU' AND note LIKE '%=%'"));
        assertThat(ControlRequest.parse("r-3", "operation=request\ntables=public.a\nfilter.public.a = id > 10 \n")
                .rowFilters()).containsExactly(Map.entry("public.a", "id > 10"));
        assertThatThrownBy(() -> ControlRequest.parse("r-4", "operation=request\ntables=public.a\nfilter.public.b=x\n"))
                .isInstanceOf(CdcException.class).hasMessageContaining("r-4").hasMessageContaining("public.b");
        assertThatThrownBy(() -> ControlRequest.parse("r-5", "operation=pause\ntables=public.a\nfilter.public.a=x\n"))
                .hasMessageContaining("only a request takes row filters");
        assertThatThrownBy(() -> ControlRequest.request(List.of("public.a"), Map.of("public.a", "a = 1\nOR b = 2")))
                .hasMessageContaining("on one line");
        assertThatThrownBy(() -> ControlRequest.request(List.of("public.a"), Map.of("public.a", " ")))
                .hasMessageContaining("blank");
    }

    @Test
    void theCommandLineTakesRowFiltersForARequest() {
        ControlRequest r = SnapshotControl.commandLine("request", "public.a", "--filter", "public.b", "region = 'EU'",
                "public.b");
        assertThat(r.operation()).isEqualTo(ControlRequest.Operation.REQUEST);
        assertThat(r.tables()).containsExactly("public.a", "public.b");
        assertThat(r.rowFilters()).containsExactly(Map.entry("public.b", "region = 'EU'"));
        assertThat(SnapshotControl.commandLine("pause").tables()).isEmpty();
        assertThatThrownBy(() -> SnapshotControl.commandLine("stop", "--filter", "public.a", "x = 1"))
                .hasMessageContaining("only request");
        assertThatThrownBy(() -> SnapshotControl.commandLine("request", "--filter", "public.a"))
                .hasMessageContaining("--filter takes a table and a condition");
        assertThatThrownBy(() -> SnapshotControl.commandLine("explode")).hasMessageContaining("'explode'");
    }

    @Test
    void theReadoutKeepsAFilterWithTabsAndLineBreaksOnOneLine() {
        List<TableReadout> state = List.of(new TableReadout("public.a", TableReadout.SNAPSHOTTING, 2, 1,
                "a = 'x\ty'\nAND b LIKE 'c\\d'"), new TableReadout("public.b", TableReadout.CAPTURED, 1, 1,
                TableReadout.NO_FILTER));
        String text = TableReadout.format(state);
        assertThat(text.lines()).hasSize(3);
        assertThat(TableReadout.parse(text)).isEqualTo(state);
    }

    @Test
    void theReadoutSaysWhyASnapshotFailedAndReadsAReadoutWrittenBeforeTheReasonColumn() {
        List<TableReadout> state = List.of(new TableReadout("public.a", TableReadout.FAILED, -1, 2, "1 / n > 0",
                "ERROR: division by zero\tWhere: f\\g"), new TableReadout("public.b", TableReadout.CAPTURED, 1, 1,
                TableReadout.NO_FILTER));
        String text = TableReadout.format(state);
        assertThat(text.lines().findFirst().orElseThrow()).endsWith("\tfilter\treason");
        assertThat(text.lines()).hasSize(3);
        assertThat(TableReadout.parse(text)).isEqualTo(state);
        assertThat(TableReadout.parse(text).get(1).reason()).isEmpty();
        String before = "table\tstatus\tchunks-planned\tchunks-read\tfilter\npublic.a\tstopped\t-1\t2\tnone\n";
        assertThat(TableReadout.parse(before)).containsExactly(new TableReadout("public.a", TableReadout.STOPPED, -1,
                2, TableReadout.NO_FILTER));
        assertThatThrownBy(() -> TableReadout.parse("public.a\tstopped\t-1\n")).hasMessageContaining("6 fields");
    }

    @Test
    void aMalformedRequestIsRefusedNamingWhatIsWrong() {
        assertThatThrownBy(() -> ControlRequest.parse("x", "operation=snapshot\n")).isInstanceOf(CdcException.class)
                .hasMessageContaining("x").hasMessageContaining("'snapshot'");
        assertThatThrownBy(() -> ControlRequest.parse("x", "tables=a.b\n")).hasMessageContaining("no operation");
        assertThatThrownBy(() -> ControlRequest.parse("x", "operation=pause\ncolour=red\n"))
                .hasMessageContaining("'colour'");
        assertThatThrownBy(() -> ControlRequest.parse("x", "operation=request\n"))
                .hasMessageContaining("no table");
        assertThatThrownBy(() -> ControlRequest.of("../etc", ControlRequest.Operation.PAUSE, List.of()))
                .hasMessageContaining("'../etc'");
    }

    @Test
    void resultsAndTheReadoutReadBackAndNoTemporaryFileIsLeft() throws Exception {
        ControlDirectory d = ControlDirectory.of(dir.toUri().toString());
        SnapshotControl client = SnapshotControl.at(dir.toUri().toString());
        String id = client.pause("public.a");
        d.writeRequest(ControlRequest.of("bad", ControlRequest.Operation.PAUSE, List.of()));
        Files.writeString(dir.resolve("requests/bad.request"), "nonsense\n");
        List<ControlDirectory.Pending> pending = d.pendingRequests(Set.of());
        assertThat(pending).extracting(ControlDirectory.Pending::id).containsExactly(id, "bad");
        assertThat(pending.get(0).request().tables()).containsExactly("public.a");
        assertThat(pending.get(1).error()).contains("bad").contains("nonsense");
        assertThat(d.pendingRequests(Set.of(id, "bad"))).isEmpty();

        ControlResult applied = ControlResult.applied(id, "pause: public.a", Map.of("public.a", "snapshotting"));
        d.writeResult(applied);
        d.writeResult(applied); // written again after a failover: replaced whole
        assertThat(client.result(id)).contains(applied);
        assertThat(client.result("other")).isEmpty();
        ControlResult rejected = ControlResult.rejected("bad", "it says\nnothing");
        d.writeResult(rejected);
        assertThat(client.result("bad").orElseThrow().message()).isEqualTo("it says nothing");

        assertThat(client.state()).isEmpty();
        List<TableReadout> state = List.of(new TableReadout("public.a", TableReadout.PAUSED, -1, 3, "none"),
                new TableReadout("public.b", TableReadout.CAPTURED, 7, 7, "none"));
        d.writeState(state);
        d.writeState(state);
        assertThat(client.state()).isEqualTo(state);

        d.deleteRequest(id);
        d.deleteRequest(id);
        assertThat(d.pendingRequests(Set.of())).extracting(ControlDirectory.Pending::id).containsExactly("bad");
        try (var files = Files.walk(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
    }

    @Test
    void anEmptyPathIsRefusedWithTheOption() {
        assertThatThrownBy(() -> ControlDirectory.of(" ")).hasMessageContaining("scan.control.path");
    }

    /**
     * A readout read while the enumerator replaces it is the old one or the new one, never missing (found in CI: the
     * writer deleted the file before renaming the new one over it, and a reader between the two failed).
     */
    @Test
    void aReadoutBeingReplacedReadsWholeAndIsNeverMissing() throws Exception {
        ControlDirectory d = ControlDirectory.of(dir.toString()); // a path without a scheme: the local file system
        d.writeState(List.of(new TableReadout("db.t", TableReadout.SNAPSHOTTING, 1, 0, "")));
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; !done.get(); i++) {
                    d.writeState(List.of(new TableReadout("db.t", TableReadout.SNAPSHOTTING, i + 1, i, "")));
                    writes.incrementAndGet();
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        writer.start();
        try {
            for (int i = 0; i < 2_000; i++) {
                assertThat(d.readState()).as("read " + i).hasValueSatisfying(t -> assertThat(t).hasSize(1));
            }
        } finally {
            done.set(true);
            writer.join();
        }
        assertThat(failed.get()).as("the writer's failure").isNull();
        assertThat(writes.get()).as("replacements while reading").isPositive();
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no temporary file left").containsExactly("state.tsv");
        }
    }
}
