package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Oracle MySQL 9's VECTOR columns, read by a snapshot chunk and from the binlog: random vectors of
 * random floats (any bits but NaN and the infinities, which the server refuses; -0.0, subnormals and
 * the largest floats included), written as their bytes, come back from both paths as exactly the
 * floats written, bit for bit, with NULLs and the largest dimension. MariaDB 11.4 has no VECTOR
 * (MariaDB's, from 11.7, is not tested here): skipped there. The test prints its seed; replay it
 * with {@code -Drustcdc.vector.seed=<seed>}.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlVectorITCase {
    private static final int ROWS = 200;
    private static final int MAX_DIMENSION = 16383;

    @BeforeEach
    void oracleMySqlOnly(MySqlDatabase db) {
        Assumptions.assumeFalse(db.server().isMariaDb(), "VECTOR is Oracle MySQL 9's (MariaDB's, from 11.7, is not "
                + "the build's 11.4)");
    }

    @Test
    void randomVectorsAreTheirFloatsBitForBitFromSnapshotAndBinlog(MySqlDatabase db) throws Exception {
        long seed = Long.getLong("rustcdc.vector.seed", System.nanoTime());
        System.out.println("MySqlVectorITCase seed " + seed + " (replay with -Drustcdc.vector.seed=" + seed + ")");
        Random random = new Random(seed);
        // text columns around the vectors: the table map lists a character set for each VECTOR column too,
        // so every later column's set depends on counting them as the server does
        db.execute("CREATE TABLE vectors (id INT PRIMARY KEY, a VARCHAR(8) CHARACTER SET latin1, v3 VECTOR(3), "
                + "v VECTOR, b VARCHAR(8) CHARACTER SET utf8mb4, vmax VECTOR(" + MAX_DIMENSION + ") NOT NULL, "
                + "c VARCHAR(8) CHARACTER SET cp1251)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "vectors");
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
        }

        Map<Integer, List<List<Float>>> written = new LinkedHashMap<>();
        List<String> inserts = new ArrayList<>();
        for (int id = 1; id <= ROWS; id++) {
            List<Float> v3 = random.nextInt(8) == 0 ? null : randomVector(random, 1 + random.nextInt(3));
            List<Float> v = random.nextInt(8) == 0 ? null : randomVector(random, 1 + random.nextInt(
                    random.nextBoolean() ? 16 : 2048));
            List<Float> vmax = randomVector(random, id <= 2 ? MAX_DIMENSION : 1 + random.nextInt(64));
            written.put(id, java.util.Arrays.asList(v3, v, vmax));
            inserts.add("INSERT INTO vectors VALUES (" + id + ", 'caf\u00e9', " + literal(v3) + ", " + literal(v)
                    + ", '\uD83C\uDF89', " + literal(vmax) + ", '\u0434\u0430')");
        }
        List<Float> special = List.of(-0.0f, 0.0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL,
                Float.intBitsToFloat(0x007fffff), Float.MAX_VALUE, -Float.MAX_VALUE, 1.0f, -1.0f);
        written.put(ROWS + 1, java.util.Arrays.asList(special.subList(0, 3), special, special));
        inserts.add("INSERT INTO vectors VALUES (" + (ROWS + 1) + ", NULL, " + literal(special.subList(0, 3)) + ", "
                + literal(special) + ", NULL, " + literal(special) + ", NULL)");
        // also by the server's own functions, which parse text to the nearest float (and refuse subnormals)
        written.put(ROWS + 2, java.util.Arrays.asList(List.of(1.5f, -2.25f, 3.0e-38f), null, List.of(0.1f)));
        inserts.add("INSERT INTO vectors VALUES (" + (ROWS + 2) + ", NULL, STRING_TO_VECTOR('[1.5, -2.25, 3e-38]'), "
                + "NULL, NULL, TO_VECTOR('[0.1]'), NULL)");
        db.execute(inserts.toArray(new String[0]));
        // an update: the binlog's before image decodes as well
        db.execute("UPDATE vectors SET v3 = x'0000803f' WHERE id = 1");
        written.get(1).set(0, List.of(1.0f));

        Map<Object, Row> snapshot = new HashMap<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            TableDescription described = session.describe(table);
            RowShape.Column v3 = described.shape().columns().get(2);
            assertThat(v3.dataType()).isEqualTo("vector(3)");
            assertThat(described.rowType().type(2)).isEqualTo(ValueType.arrayOf(ValueType.of(ValueKind.FLOAT32)));
            assertThat(described.shape().columns().get(3).dataType()).isEqualTo("vector(2048)");
            session.readChunk(described, List.of("id"), null, null, e -> snapshot.put(e.after().get("id"), e.after()));
        }
        Map<Object, Row> stream = new HashMap<>();
        Row before = null;
        try (ChangeStream<MySqlPosition> changes = connector.openStream(start, TableFilter.all())) {
            for (ChangeEvent e : StreamTestSupport.events(changes, written.size() + 1)) {
                if (e.op() == Op.UPDATE) {
                    before = e.before();
                }
                stream.put(e.after().get("id"), e.after());
            }
        }
        assertThat(snapshot).hasSize(written.size());
        assertThat(stream).hasSize(written.size());
        for (Map.Entry<Integer, List<List<Float>>> row : written.entrySet()) {
            Object id = (long) row.getKey();
            for (Row read : List.of(snapshot.get(id), stream.get(id))) {
                assertThat(bits(read.get("v3"))).as("v3 of row %s", id).isEqualTo(bits(row.getValue().get(0)));
                assertThat(bits(read.get("v"))).as("v of row %s", id).isEqualTo(bits(row.getValue().get(1)));
                assertThat(bits(read.get("vmax"))).as("vmax of row %s", id).isEqualTo(bits(row.getValue().get(2)));
            }
            assertThat(stream.get(id)).as("row %s", id).isEqualTo(snapshot.get(id));
            assertThat(render(stream.get(id))).as("row %s", id).isEqualTo(render(snapshot.get(id)));
            if (row.getKey() <= ROWS) {
                assertThat(snapshot.get(id).get("a")).isEqualTo("caf\u00e9");
                assertThat(snapshot.get(id).get("b")).isEqualTo("\uD83C\uDF89");
                assertThat(stream.get(id).get("c")).isEqualTo("\u0434\u0430");
            }
        }
        assertThat(before).isNotNull();
        assertThat(before.get("vmax")).isEqualTo(stream.get(1L).get("vmax"));
        assertThat(((List<?>) stream.get((long) ROWS + 1).get("v3")).get(0)).isEqualTo(-0.0f);
        assertThat(((List<?>) snapshot.get(1L).get("vmax"))).hasSize(MAX_DIMENSION);
    }

    /**
     * What the server accepts, which the decoding relies on: no NaN and no infinity by any way in, and
     * no more entries than declared; a session with a non-strict {@code sql_mode} stores a too-long
     * vector as an empty one, which both paths give as an empty list.
     */
    @Test
    void theServerRefusesNanAndInfinitiesAndAnEmptyVectorReadsAsAnEmptyList(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE edge_vectors (id INT PRIMARY KEY, v VECTOR(2))");
        for (String value : List.of("x'0000c07f'", "x'0100c0ff'", "x'0000807f'", "x'000080ff'",
                "STRING_TO_VECTOR('[1e39]')", "x'000000000000000000000000'", "x''", "x'000000'")) {
            assertThatThrownBy(() -> db.execute("INSERT INTO edge_vectors VALUES (1, " + value + ")"))
                    .as("storing %s", value).hasCauseInstanceOf(SQLException.class)
                    .hasMessageFindingMatch("cannot be converted to 'vector' type|cannot be converted to a valid vector"
                            + "|Data too long");
        }
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "edge_vectors");
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
        }
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_mode = ''");
            s.execute("INSERT INTO edge_vectors VALUES (2, x'000000000000000000000000')"); // a warning, and empty
        }
        assertThat(db.queryValue("SELECT LENGTH(v) FROM edge_vectors WHERE id = 2")).isEqualTo("0");
        List<Row> snapshot = new ArrayList<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            session.readChunk(session.describe(table), List.of("id"), null, null, e -> snapshot.add(e.after()));
        }
        Row streamed;
        try (ChangeStream<MySqlPosition> changes = connector.openStream(start, TableFilter.all())) {
            streamed = StreamTestSupport.events(changes, 1).get(0).after();
        }
        assertThat(snapshot).hasSize(1);
        assertThat(snapshot.get(0).get("v")).isEqualTo(List.of());
        assertThat(streamed).isEqualTo(snapshot.get(0));
    }

    /** A random vector of {@code n} floats of random bits, NaN and the infinities (exponent all ones) left out. */
    private static List<Float> randomVector(Random random, int n) {
        List<Float> floats = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int bits;
            switch (random.nextInt(4)) {
                case 0: // any finite bits: subnormals, -0.0, huge and tiny exponents
                    do {
                        bits = random.nextInt();
                    } while ((bits & 0x7f800000) == 0x7f800000);
                    break;
                case 1:
                    bits = Float.floatToRawIntBits(random.nextFloat() * 2 - 1);
                    break;
                case 2:
                    bits = random.nextInt(16) | (random.nextBoolean() ? 0x80000000 : 0); // 0, -0.0, subnormals
                    break;
                default:
                    bits = Float.floatToRawIntBits((float) random.nextGaussian());
            }
            floats.add(Float.intBitsToFloat(bits));
        }
        return floats;
    }

    /** The vector as MySQL stores it, little-endian floats, as a hex literal. */
    private static String literal(List<Float> vector) {
        if (vector == null) {
            return "NULL";
        }
        StringBuilder hex = new StringBuilder("x'");
        for (float f : vector) {
            int bits = Float.floatToRawIntBits(f);
            for (int b = 0; b < 4; b++) {
                hex.append(String.format("%02x", (bits >>> (8 * b)) & 0xff));
            }
        }
        return hex.append("'").toString();
    }

    /** Each float's raw bits, so -0.0 is told from 0.0 (List.equals compares floats by value). */
    private static List<Integer> bits(Object vector) {
        if (vector == null) {
            return null;
        }
        List<Integer> bits = new ArrayList<>();
        for (Object f : (List<?>) vector) {
            bits.add(Float.floatToRawIntBits((Float) f));
        }
        return bits;
    }

    private static String render(Row row) {
        ChangeEvent e = ChangeEvent.builder(Op.READ, TableId.of("d", "d", "t"), SourceInfo.snapshot("mysql", null))
                .after(row).build();
        return JsonRenderer.create().renderToString(e);
    }
}
