package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The harness's options: a value it does not know, or one not for the database, is refused by name before anything
 * starts; without {@code --chunk-size} each side reads at its own default; a JSON document in bytes reads as its text.
 */
class BenchmarkOptionsTest {
    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());

    @Test
    void anObjectReuseOtherThanTrueOrFalseIsRefusedByName() {
        assertRefused("--object-reuse yes: expected true or false", "--object-reuse", "yes");
    }

    @Test
    void phasesOtherThanAllSnapshotOrStreamAreRefusedByName() {
        assertRefused("--phases drain: expected all, snapshot or stream", "--phases", "drain");
    }

    @Test
    void anUnknownJsonOutputIsRefusedByName() {
        assertRefused("--json-output utf8: expected bytes or string", "--json-output", "utf8");
    }

    @Test
    void anUnknownWalTransportIsRefusedByName() {
        assertRefused("--wal-transport peek: expected streaming or sql-peek", "--wal-transport", "peek");
    }

    @Test
    void sqlPeekIsForPostgresOnly() {
        assertRefused("--wal-transport sql-peek reads a PostgreSQL slot: use it with --database postgres "
                + "(the default), not --database mariadb", "--database", "mariadb", "--wal-transport", "sql-peek");
    }

    @Test
    void eachSideReadsAtItsOwnDefaultChunkSizeUnlessOneIsGiven() {
        assertThat(Benchmark.chunkArgs(null, SideRunner.OURS)).isEmpty();
        assertThat(Benchmark.chunkArgs(null, SideRunner.PEER)).containsExactly("--chunk-size", "8096");
        assertThat(Benchmark.chunkArgs(20_000, SideRunner.OURS)).containsExactly("--chunk-size", "20000");
        assertThat(Benchmark.chunkArgs(20_000, SideRunner.PEER)).containsExactly("--chunk-size", "20000");
    }

    @Test
    void aDocumentInBytesHasTheCommitTimeOfItsText() {
        String json = "{\"op\":\"insert\",\"after\":{\"note\":\"caf\u00e9\"},\"source\":{\"connector\":\"postgres\","
                + "\"commit_time\":\"2026-12-04T00:00:01.5Z\",\"snapshot\":false}}";
        assertThat(OurBenchmark.commitMillis(json.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(OurBenchmark.commitMillis(json)).isEqualTo(1_796_342_401_500L);
    }

    private static void assertRefused(String message, String... args) {
        assertThatThrownBy(() -> Benchmark.run(args, NOWHERE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
