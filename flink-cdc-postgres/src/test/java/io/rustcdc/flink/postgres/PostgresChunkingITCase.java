package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Key-range chunks: boundaries in the database's order, every row read once, keyless tables refused or keyed. */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresChunkingITCase {
    private static final String OPTION = "scan.incremental.snapshot.chunk.key-column";
    private PostgresDatabase db;
    private CatalogSession<PostgresPosition, PostgresChunkMark> session;

    @BeforeEach
    void setUp(PostgresDatabase db) {
        this.db = db;
        this.session = PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession();
    }

    @AfterEach
    void tearDown() {
        session.close();
    }

    @Test
    void compositeKeyChunksCoverEveryRowOnce() {
        db.execute("DROP TABLE IF EXISTS composite",
                "CREATE TABLE composite (a int, b bigint, v text, PRIMARY KEY (a, b))",
                "INSERT INTO composite SELECT a, b, a || '-' || b FROM generate_series(1, 10) a, generate_series(1, 100) b",
                "GRANT SELECT ON composite TO " + db.replicationUser());
        TableDescription table = session.describe(table("composite"));
        ChunkKey key = ChunkKey.of(table, PostgresKeyOrder.INSTANCE, null, OPTION);
        assertThat(key.columns()).containsExactly("a", "b");
        assertThat(key.splittable()).isTrue();
        List<String> rows = readInChunks(table, key, 128);
        assertThat(rows).hasSize(1000).doesNotHaveDuplicates();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "numeric | ('NaN'), ('-Infinity'), ('Infinity'), (-1.5), (0), (1e20), (0.000001), (2)",
        "uuid | ('ffffffff-0000-0000-0000-000000000000'), ('00000000-0000-0000-0000-000000000001'), "
                + "('7fffffff-ffff-ffff-ffff-ffffffffffff'), ('80000000-0000-0000-0000-000000000000')",
        "timestamptz | ('infinity'), ('-infinity'), ('2024-03-30 23:30:00.000001+00'), ('0044-03-15 12:00:00+00 BC'), "
                + "('2024-03-30 23:30:00+00')",
        "date | ('0001-01-01 BC'), ('5874897-12-31'), ('-infinity'), ('2024-03-30'), ('0001-01-01')",
        "bytea | ('\\x'), ('\\xff'), ('\\x00'), ('\\x7f'), ('\\x80'), ('\\x0000')",
        "bigint | (-9223372036854775808), (9223372036854775807), (0), (-1), (1)",
    })
    void keysOfEveryOrderedTypeSplitInTheDatabasesOrder(String type, String values) {
        db.execute("DROP TABLE IF EXISTS keyed", "CREATE TABLE keyed (k " + type + " PRIMARY KEY)",
                "INSERT INTO keyed VALUES " + values, "GRANT SELECT ON keyed TO " + db.replicationUser());
        TableDescription table = session.describe(table("keyed"));
        ChunkKey key = ChunkKey.of(table, PostgresKeyOrder.INSTANCE, null, OPTION);
        assertThat(key.splittable()).isTrue();
        List<Object[]> ends = new ArrayList<>();
        Object[] end = null;
        while ((end = session.nextChunkEnd(table, key.columns(), end, 2)) != null) {
            ends.add(end);
        }
        for (int i = 1; i < ends.size(); i++) {
            assertThat(key.compare(ends.get(i - 1), ends.get(i))).as("chunk ends in order").isNegative();
        }
        int count = Integer.parseInt(db.queryValue("SELECT count(*) FROM keyed"));
        assertThat(readInChunks(table, key, 2)).hasSize(count).doesNotHaveDuplicates();
    }

    @Test
    void keylessTableIsRefusedUnlessAChunkKeyIsConfigured() {
        db.execute("DROP TABLE IF EXISTS keyless", "CREATE TABLE keyless (v text, n int NOT NULL, maybe int)",
                "INSERT INTO keyless SELECT 'v' || g, g, CASE WHEN g % 5 = 0 THEN NULL ELSE g END FROM generate_series(1, 50) g",
                "GRANT SELECT ON keyless TO " + db.replicationUser());
        TableDescription table = session.describe(table("keyless"));
        assertThatThrownBy(() -> ChunkKey.of(table, PostgresKeyOrder.INSTANCE, null, OPTION))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("Table public.keyless has no primary key")
                .hasMessageContaining("'" + OPTION + "'");
        assertThatThrownBy(() -> ChunkKey.of(table, PostgresKeyOrder.INSTANCE, "missing", OPTION))
                .hasMessageContaining("has no such column");
        ChunkKey byText = ChunkKey.of(table, PostgresKeyOrder.INSTANCE, "v", OPTION);
        assertThat(byText.splittable()).as("a nullable key column").isFalse();
        List<ChangeEvent> all = new ArrayList<>();
        session.readChunk(table, byText.columns(), null, null, all::add);
        assertThat(all).hasSize(50).allSatisfy(e -> assertThat(e.op()).isEqualTo(Op.READ));
        assertThat(all.get(0).source().snapshot()).isTrue();
        assertThat(all.get(0).shape()).isEqualTo(table.shape());
        ChunkKey byInt = ChunkKey.of(table, PostgresKeyOrder.INSTANCE, "n", OPTION);
        assertThat(readInChunks(table, byInt, 7)).hasSize(50).doesNotHaveDuplicates();
        // split by a nullable column, the ten rows whose value is NULL would lie in no chunk: one chunk reads them
        ChunkKey byNullable = ChunkKey.of(table, PostgresKeyOrder.INSTANCE, "maybe", OPTION);
        assertThat(byNullable.splittable()).isFalse();
        List<ChangeEvent> one = new ArrayList<>();
        session.readChunk(table, byNullable.columns(), null, null, one::add);
        assertThat(one).hasSize(50).filteredOn(e -> e.after().get("maybe") == null).hasSize(10);
        int splitByNullable = Integer.parseInt(db.queryValue("SELECT count(*) FROM keyless WHERE maybe > 0 OR maybe <= 0"));
        assertThat(splitByNullable).as("what key ranges would have read").isEqualTo(40);
    }

    private List<String> readInChunks(TableDescription table, ChunkKey key, int chunkSize) {
        List<String> rows = new ArrayList<>();
        Set<Integer> sizes = new HashSet<>();
        Object[] after = null;
        while (true) {
            Object[] upTo = session.nextChunkEnd(table, key.columns(), after, chunkSize);
            List<ChangeEvent> chunk = new ArrayList<>();
            session.readChunk(table, key.columns(), after, upTo, chunk::add);
            for (ChangeEvent e : chunk) {
                rows.add(key.columns().stream().map(c -> String.valueOf(e.after().get(c))).reduce("", (x, y) -> x + "|" + y));
            }
            if (upTo == null) {
                break;
            }
            sizes.add(chunk.size());
            after = upTo;
        }
        assertThat(sizes).as("every chunk but the last has exactly the chunk size").containsOnly(chunkSize);
        return rows;
    }

    private TableId table(String name) {
        return TableId.of(db.name(), "public", name);
    }
}
