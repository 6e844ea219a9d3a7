package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.RestorableJob;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job stopped with a savepoint and restored: the first DDL statement of a table after the restore,
 * with no row of it read since, is classified as it would have been without the restart, against
 * what the source's events said of the table's shape before the savepoint (kept in the stream
 * split's state): the rows streamed before it, or the shape its last classified statement left.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlSchemaChangeRestoreITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theFirstStatementAfterARestoreIsClassifiedAsWithoutTheRestart(MySqlDatabase db, @TempDir Path savepoints)
            throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        db.execute("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10))", "CREATE TABLE u (id INT PRIMARY KEY, a VARCHAR(10))",
                "CREATE TABLE v (id INT PRIMARY KEY, a VARCHAR(10))",
                "INSERT INTO t VALUES (1, 'a')", "INSERT INTO u VALUES (1, 'a')", "INSERT INTO v VALUES (1, 'a')");
        String savepoint;
        long addedVersion;
        try (RestorableJob job = RestorableJob.start(source(db), null)) {
            take(job.records, 3, j -> j.path("op").asText().equals("read"));
            // t: a row streamed; u: a row streamed, then a statement classified against it; v: no row streamed
            db.execute("INSERT INTO t VALUES (2, 'b')", "INSERT INTO u VALUES (2, 'b')");
            // read before the next statement runs, as a stream that keeps up reads them
            take(job.records, 2, j -> j.path("op").asText().equals("insert"));
            db.execute("ALTER TABLE u ADD COLUMN b INT");
            JsonNode added = take(job.records, 1, j -> j.path("op").asText().equals("schema_change")).get(0);
            assertThat(classes(added)).as(added.toString()).containsExactly("column_added");
            // after the three tables' shapes at the snapshot and before them none: a version of the history
            addedVersion = version(added);
            assertThat(addedVersion).as(added.toString()).isGreaterThan(3);
            savepoint = job.stopWithSavepoint(savepoints);
        }
        try (RestorableJob job = RestorableJob.start(source(db), savepoint)) {
            db.execute("ALTER TABLE t ADD COLUMN c TEXT", "ALTER TABLE u MODIFY b BIGINT", "ALTER TABLE v ADD COLUMN c TEXT",
                    "ALTER TABLE t ADD INDEX ia (a)");
            List<JsonNode> changes = take(job.records, 4, j -> j.path("op").asText().equals("schema_change"));
            assertThat(changes).as(changes.toString()).extracting(j -> j.path("table").asText())
                    .containsExactly("t__ddl_events", "u__ddl_events", "v__ddl_events", "t__ddl_events");
            // against the shape t's rows carried before the savepoint
            JsonNode t = changes.get(0).path("schema_changes").get(0);
            assertThat(t.path("class").asText()).isEqualTo("column_added");
            assertThat(t.path("after").get(0).path("name").asText()).isEqualTo("c");
            assertThat(t.path("position").asInt()).isEqualTo(2);
            // against the shape u's classified ADD COLUMN left
            JsonNode u = changes.get(1).path("schema_changes").get(0);
            assertThat(u.path("class").asText()).isEqualTo("column_type_changed");
            assertThat(u.path("before").get(0).path("data_type").asText()).startsWith("int");
            assertThat(u.path("after").get(0).path("data_type").asText()).startsWith("bigint");
            // no row of v streamed before the savepoint: nothing held, as without the restart
            JsonNode v = changes.get(2).path("schema_changes").get(0);
            assertThat(v.path("class").asText()).isEqualTo("unknown");
            assertThat(v.path("reason").asText()).contains("holds no shape of the table from before the statement");
            // with no shape (the catalogue read with it may hold later statements): recorded by nothing, no version
            assertThat(changes.get(2).has("shape")).as(changes.get(2).toString()).isFalse();
            assertThat(changes.get(2).path("after").path("history_version").isNull()).isTrue();
            // an index: classified as changing nothing, with the shape the classified ADD COLUMN left
            assertThat(classes(changes.get(3))).containsExactly("unchanged");
            assertThat(changes.get(3).path("shape").path("id").asText())
                    .isEqualTo(changes.get(0).path("shape").path("id").asText());
            // the restored history goes on from the savepoint's versions: each change a newer one
            long previous = addedVersion;
            for (JsonNode change : List.of(changes.get(0), changes.get(1), changes.get(3))) {
                assertThat(version(change)).as(change.toString()).isGreaterThan(previous);
                previous = version(change);
            }
        }
    }

    private static CdcSource<String, MySqlPosition, MySqlPosition> source(MySqlDatabase db) {
        return CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t", db.name() + ".u", db.name() + ".v")
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    /** The schema history version a schema change event carries (a bigint: a decimal string in native JSON). */
    private static long version(JsonNode change) {
        JsonNode version = change.path("after").path("history_version");
        assertThat(version.isTextual()).as(change.toString()).isTrue();
        return Long.parseLong(version.asText());
    }

    private static List<String> classes(JsonNode change) {
        List<String> classes = new ArrayList<>();
        change.path("schema_changes").forEach(c -> classes.add(c.path("class").asText()));
        return classes;
    }

    /** The next {@code count} records that match, in order, within a minute; the others are dropped. */
    private static List<JsonNode> take(BlockingQueue<String> records, int count, Predicate<JsonNode> wanted)
            throws Exception {
        List<JsonNode> taken = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (taken.size() < count) {
            String next = records.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertThat(next).as("record %d of %d", taken.size() + 1, count).isNotNull();
            JsonNode json = JSON.readTree(next);
            if (wanted.test(json)) {
                taken.add(json);
            }
        }
        return taken;
    }
}
