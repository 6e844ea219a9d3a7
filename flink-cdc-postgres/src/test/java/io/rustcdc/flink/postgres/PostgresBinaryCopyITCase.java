package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;

/**
 * A table with a column of every type whose binary form is decoded, filled with random values biased to the
 * edges, read by a snapshot chunk ({@code COPY}'s binary format) and from the stream (pgoutput's text): both give
 * equal values, equal to those inserted where the test knows them exactly. The same rows in a table with an
 * {@code interval} column too are read in the text format and give the same values again. The seed is printed;
 * {@code -Drustcdc.seed=N} replays a run.
 */
@ExtendWith(PostgresExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class PostgresBinaryCopyITCase {
    private static final long SEED = Long.getLong("rustcdc.seed", System.nanoTime());
    private static final String SEEDED = "seed=" + SEED;
    private static final int RANDOM_ROWS = 300;
    private static final int FIRST_RANDOM_ID = 100;
    /** An expected value the test does not know exactly (the database rounded or normalized it). */
    private static final Object UNCHECKED = new Object();
    private static final String BINARY_TABLE = "bin_types";
    private static final String TEXT_TABLE = "text_types";
    private static final String COLUMNS = "c_bool boolean, c_bytea bytea, c_int2 smallint, c_int4 integer, "
            + "c_int8 bigint, c_oid oid, c_xid xid, c_cid cid, c_float4 real, c_float8 double precision, "
            + "c_num numeric, c_num12 numeric(12,4), c_num38 numeric(38,10), c_date date, c_time time, "
            + "c_time0 time(0), c_ts timestamp, c_ts3 timestamp(3), c_tstz timestamptz, c_tstz6 timestamptz(6), "
            + "c_uuid uuid, c_text text, c_varchar varchar(20), c_char char(7), c_name name, c_json json, c_jsonb jsonb";
    private static final String[] NAMES = Arrays.stream(COLUMNS.split(", (?=c_)"))
            .map(c -> c.substring(0, c.indexOf(' '))).toArray(String[]::new);
    private static final long MIN_SECOND = LocalDateTime.of(-4713, 11, 24, 0, 0).toEpochSecond(ZoneOffset.UTC);
    private static final long MAX_SECOND = LocalDateTime.of(294276, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);
    private static final long MIN_DAY = LocalDate.of(-4713, 11, 24).toEpochDay();
    private static final long MAX_DAY = LocalDate.of(5874897, 12, 31).toEpochDay();
    private static final int[] CODE_POINTS = {'a', 'b', 'Z', '0', '9', ' ', ' ', '\t', '\n', '\r', '\\', '\'', '"', ',',
        '{', '}', '[', ']', 0x01, 0x08, 0x0B, 0x0C, 0x7F, 0xE9, 0xDF, 0x4E2D, 0x2028, 0xFEFF, 0x1F389, 0x1F600, 0x10FFFF};

    private final Random random = new Random(SEED);
    /** The expected value of each column of each random row, by id, in {@link #NAMES}' order. */
    private final Map<Integer, Object[]> expected = new HashMap<>();
    private final Map<Integer, Row> binarySnapshot = new HashMap<>();
    private final Map<Integer, Row> textSnapshot = new HashMap<>();
    private final Map<Integer, Row> binaryStream = new HashMap<>();
    private final Map<Integer, Row> textStream = new HashMap<>();
    private boolean binaryDecoder;
    private boolean textDecoderBinary;
    private long binarySessionBytes;
    private long binaryCopyBytes;
    private long textCopyBytes;
    private int emptyChunkRows = -1;

    @BeforeAll
    void captureBothWays(PostgresDatabase db) throws Exception {
        System.out.println(PostgresBinaryCopyITCase.class.getSimpleName() + " seed=" + SEED
                + " (replay with -Drustcdc.seed=" + SEED + ")");
        db.execute("CREATE TABLE " + BINARY_TABLE + " (id int PRIMARY KEY, " + COLUMNS + ")",
                "CREATE TABLE " + TEXT_TABLE + " (id int PRIMARY KEY, " + COLUMNS + ", c_interval interval)",
                "ALTER TABLE " + BINARY_TABLE + " OWNER TO " + db.replicationUser(),
                "ALTER TABLE " + TEXT_TABLE + " OWNER TO " + db.replicationUser());
        PostgresSourceConfig config = PostgresTestConfigs.streaming(db, "binary_copy_slot");
        PostgresConnector connector = PostgresConnector.create(config);
        TableId binary = TableId.of(db.name(), "public", BINARY_TABLE);
        TableId text = TableId.of(db.name(), "public", TEXT_TABLE);
        PostgresPosition start;
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            start = session.prepareStream(List.of(binary, text), false);
        }
        List<String> inserts = new ArrayList<>(knownRows());
        StringBuilder values = new StringBuilder();
        for (int id = FIRST_RANDOM_ID; id < FIRST_RANDOM_ID + RANDOM_ROWS; id++) {
            values.append(id == FIRST_RANDOM_ID ? "" : ", ").append(randomRow(id));
        }
        inserts.add("INSERT INTO " + BINARY_TABLE + " VALUES " + values);
        inserts.add("INSERT INTO " + TEXT_TABLE + " SELECT *, interval '1 year 2 mons -3 days 04:05:06.789' FROM "
                + BINARY_TABLE);
        db.execute(inserts.toArray(String[]::new));
        int rows = RANDOM_ROWS + knownRows().size();

        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            readAll(session, binary, binarySnapshot);
            binarySessionBytes = session.bytesRead();
            // a chunk of no rows: the binary COPY's header and end in one message
            List<Row> none = new ArrayList<>();
            session.readChunk(session.describe(binary), List.of("id"), new Object[] {100_000L}, null,
                    e -> none.add(e.after()));
            emptyChunkRows = none.size();
        }
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            readAll(session, text, textSnapshot);
        }
        try (Connection c = db.connect()) {
            PgCatalog catalog = new PgCatalog(c, db.name());
            PgTable binaryTable = catalog.describe(binary, config.publicationName());
            binaryDecoder = binaryTable.decoder().binary();
            textDecoderBinary = catalog.describe(text, config.publicationName()).decoder().binary();
            String chunk = PostgresSession.chunkSql(binaryTable.description, binaryTable.partitioned, List.of("id"), null,
                    null, null);
            binaryCopyBytes = copyBytes(c, chunk + " (FORMAT binary)");
            textCopyBytes = copyBytes(c, chunk);
        }
        try (ChangeStream<PostgresPosition> changes = connector.openStream(start, TableFilter.all())) {
            for (ChangeEvent e : StreamTestSupport.events(changes, 2 * rows)) {
                assertThat(e.op()).as("seed=%d", SEED).isEqualTo(Op.INSERT);
                Map<Integer, Row> to = e.table().equals(binary) ? binaryStream : textStream;
                to.put(((Long) e.after().get("id")).intValue(), e.after());
            }
        }
        assertThat(binarySnapshot).as("seed=%d", SEED).hasSize(rows);
    }

    @Test
    void theTableOfBinaryTypesIsReadInBinaryAndTheOneWithAnIntervalInText() {
        assertThat(binaryDecoder).as("seed=%d", SEED).isTrue();
        assertThat(textDecoderBinary).as("seed=%d", SEED).isFalse();
        // the session's chunk read exactly the bytes of the binary COPY of its rows, not those of the text one
        assertThat(binarySessionBytes).as("seed=%d", SEED).isEqualTo(binaryCopyBytes).isNotEqualTo(textCopyBytes);
        assertThat(emptyChunkRows).as("seed=%d", SEED).isZero();
    }

    @Test
    void snapshotAndStreamGiveEqualValues() {
        compare("binary snapshot", binarySnapshot, "stream", binaryStream, true);
        compare("text snapshot", textSnapshot, "stream", textStream, true);
        compare("binary snapshot", binarySnapshot, "text snapshot", textSnapshot, false);
    }

    @Test
    void valuesAreThoseInserted() {
        int checked = 0;
        for (Map.Entry<Integer, Object[]> e : expected.entrySet()) {
            Row row = binarySnapshot.get(e.getKey());
            for (int i = 0; i < NAMES.length; i++) {
                Object want = e.getValue()[i];
                if (want == UNCHECKED) {
                    continue;
                }
                Object got = row.get(NAMES[i]);
                assertThat(Objects.deepEquals(want, got))
                        .as("seed=%d id=%d %s: expected %s (%s), binary snapshot %s (%s)", SEED, e.getKey(), NAMES[i],
                                show(want), type(want), show(got), type(got))
                        .isTrue();
                checked++;
            }
        }
        assertThat(checked).as("seed=%d", SEED).isGreaterThan(RANDOM_ROWS * NAMES.length / 2);
    }

    @Test
    void knownLiteralsDecodeToExactValues() {
        Row r1 = binarySnapshot.get(1);
        Row r2 = binarySnapshot.get(2);
        Row r3 = binarySnapshot.get(3);
        assertThat(r1.get("c_num")).as(SEEDED).isEqualTo(new BigDecimal("1.1000"));
        assertThat(((BigDecimal) r1.get("c_num")).scale()).as(SEEDED).isEqualTo(4);
        assertThat(r1.get("c_num12")).as(SEEDED).isEqualTo(new BigDecimal("1.1000"));
        assertThat(r1.get("c_num38")).as(SEEDED).isEqualTo(new BigDecimal("-0.0001000000"));
        assertThat(r2.get("c_num")).as(SEEDED).isEqualTo(SpecialValue.NAN);
        assertThat(r2.get("c_num12")).as(SEEDED).isEqualTo(SpecialValue.NAN);
        assertThat(r2.get("c_num38")).as(SEEDED).isEqualTo(new BigDecimal("123456789012345678.0000000000"));
        assertThat(r3.get("c_num")).as(SEEDED).isEqualTo(new BigDecimal("1e-500"));
        assertThat(((BigDecimal) r3.get("c_num")).scale()).as(SEEDED).isEqualTo(500);
        assertThat(r3.get("c_num12")).as(SEEDED).isEqualTo(new BigDecimal("-0.0001"));
        assertThat(r3.get("c_num38")).as(SEEDED).isEqualTo(new BigDecimal("10000.0000000000"));
        assertThat(binarySnapshot.get(4).get("c_num")).as(SEEDED).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(binarySnapshot.get(5).get("c_num")).as(SEEDED).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(binarySnapshot.get(6).get("c_num")).as(SEEDED).isEqualTo(new BigDecimal("0.000"));
        assertThat(binarySnapshot.get(7).get("c_num")).as(SEEDED).isEqualTo(new BigDecimal("-0.0001"));

        assertThat(r1.get("c_ts")).as(SEEDED).isEqualTo(LocalDateTime.of(-43, 3, 15, 12, 0));
        assertThat(r1.get("c_date")).as(SEEDED).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(r1.get("c_tstz")).as(SEEDED).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(r1.get("c_time0")).as(SEEDED).isEqualTo(Duration.ofHours(24));
        assertThat(r1.get("c_float8")).as(SEEDED).isEqualTo(-0.0d);
        assertThat(r1.get("c_float4")).as(SEEDED).isEqualTo(Float.MIN_VALUE);
        assertThat(r1.get("c_char")).as(SEEDED).isEqualTo("ab     ");
        assertThat(r1.get("c_jsonb")).as(SEEDED).isEqualTo("{\"a\": \"\u00e9\", \"b\": 1}");
        assertThat(r1.get("c_xid")).as(SEEDED).isEqualTo(4294967295L);
        assertThat((byte[]) r1.get("c_bytea")).as(SEEDED).isEmpty();
        assertThat(r2.get("c_date")).as(SEEDED).isEqualTo(LocalDate.of(-43, 3, 15));
        assertThat(r2.get("c_ts3")).as(SEEDED).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(r2.get("c_tstz6")).as(SEEDED).isEqualTo(Instant.parse("2024-03-30T21:30:00.123457Z"));
        assertThat(r2.get("c_time0")).as(SEEDED).isEqualTo(Duration.ofSeconds(12 * 3600 + 34 * 60 + 35));
        assertThat(r2.get("c_int8")).as(SEEDED).isEqualTo(Long.MIN_VALUE);
        assertThat(r2.get("c_float4")).as(SEEDED).isEqualTo(Float.NaN);
        assertThat(r3.get("c_ts3")).as(SEEDED).isEqualTo(LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_000_000));
        assertThat(r3.get("c_date")).as(SEEDED).isEqualTo(LocalDate.of(5874897, 12, 31));
        assertThat(r3.get("c_tstz6")).as(SEEDED).isEqualTo(LocalDateTime.of(-4713, 11, 24, 0, 0).toInstant(ZoneOffset.UTC));
        assertThat(r3.get("c_ts")).as(SEEDED).isEqualTo(LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000));
        assertThat(r3.get("c_uuid")).as(SEEDED).isEqualTo(UUID.fromString("ffffffff-ffff-ffff-ffff-ffffffffffff"));
        assertThat(r3.get("c_oid")).as(SEEDED).isEqualTo(4294967295L);
        assertThat(r3.get("c_name")).as(SEEDED).isEqualTo("n\u00e9 \uD83C\uDF89");
        // to the bit the NaN the stream's text "NaN" reads as
        Row r8 = binarySnapshot.get(8);
        assertThat(Double.doubleToRawLongBits((Double) r8.get("c_float8"))).as(SEEDED)
                .isEqualTo(Double.doubleToRawLongBits((Double) binaryStream.get(8).get("c_float8")))
                .isEqualTo(Double.doubleToRawLongBits(Double.NaN));
        assertThat(Float.floatToRawIntBits((Float) r8.get("c_float4"))).as(SEEDED)
                .isEqualTo(Float.floatToRawIntBits(Float.NaN));
    }

    private void compare(String what, Map<Integer, Row> a, String other, Map<Integer, Row> b, boolean sameColumns) {
        assertThat(b.keySet()).as("seed=%d %s and %s ids", SEED, what, other).isEqualTo(a.keySet());
        for (int id : a.keySet()) {
            Row x = a.get(id);
            Row y = b.get(id);
            if (sameColumns) {
                assertThat(y.type()).as("seed=%d id=%d %s and %s row types", SEED, id, what, other).isEqualTo(x.type());
            }
            for (String column : x.type().names()) {
                Object u = x.get(column);
                Object v = y.get(column);
                assertThat(Objects.deepEquals(u, v))
                        .as("seed=%d id=%d %s: %s %s (%s), %s %s (%s)", SEED, id, column, what, show(u), type(u), other,
                                show(v), type(v))
                        .isTrue();
            }
        }
    }

    private static long copyBytes(Connection c, String sql) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        c.unwrap(PGConnection.class).getCopyAPI().copyOut(sql, out);
        return out.size();
    }

    private void readAll(CatalogSession<PostgresPosition, PostgresChunkMark> session, TableId table,
            Map<Integer, Row> into) {
        TableDescription description = session.describe(table);
        session.readChunk(description, List.of("id"), null, null,
                e -> into.put(((Long) e.after().get("id")).intValue(), e.after()));
    }

    /** Rows of chosen literals, for the exact values {@link #knownLiteralsDecodeToExactValues} expects. */
    private static List<String> knownRows() {
        String into = "INSERT INTO " + BINARY_TABLE;
        return List.of(
                into + " (id, c_num, c_num12, c_num38, c_ts, c_date, c_tstz, c_time0, c_float8, c_float4, c_char, c_jsonb, "
                        + "c_xid, c_bytea) VALUES (1, '1.1000', '1.1000', '-0.0001', '0044-03-15 12:00:00 BC', 'infinity', "
                        + "'-infinity', '24:00:00', '-0', '1.4e-45', 'ab', '{\"b\": 1, \"a\": \"\u00e9\"}', '4294967295', '\\x')",
                into + " (id, c_num, c_num12, c_num38, c_date, c_ts3, c_tstz6, c_time0, c_int8, c_float4) VALUES (2, 'NaN', "
                        + "'NaN', '123456789012345678', '0044-03-15 BC', 'infinity', '2024-03-30 23:30:00.1234567+02', "
                        + "'12:34:34.5', '-9223372036854775808', 'NaN')",
                into + " (id, c_num, c_num12, c_num38, c_ts3, c_date, c_tstz6, c_ts, c_uuid, c_oid, c_name) VALUES (3, "
                        + "'1e-500', '-0.0001', '10000', '294276-12-31 23:59:59.999', '5874897-12-31', "
                        + "'4714-11-24 00:00:00+00 BC', '1999-12-31 23:59:59.999999', 'ffffffff-ffff-ffff-ffff-ffffffffffff', "
                        + "'4294967295', 'n\u00e9 \uD83C\uDF89')",
                into + " (id, c_num) VALUES (4, '-Infinity')",
                into + " (id, c_num) VALUES (5, 'Infinity')",
                into + " (id, c_num) VALUES (6, '0.000')",
                into + " (id, c_num) VALUES (7, '-0.0001')",
                // on x86 a NaN of other bits than Java's (its sign bit set), which float8send sends as it is
                into + " (id, c_float8, c_float4) VALUES (8, 'Infinity'::float8 - 'Infinity'::float8, "
                        + "'Infinity'::float4 - 'Infinity'::float4)");
    }

    // ---- random rows: each value as a literal, and the value expected back (or UNCHECKED) ----

    private String randomRow(int id) {
        Object[] want = new Object[NAMES.length];
        StringBuilder sql = new StringBuilder("(").append(id);
        for (int i = 0; i < NAMES.length; i++) {
            String literal;
            if (random.nextInt(12) == 0) {
                literal = null;
                want[i] = null;
            } else {
                Object[] v = value(NAMES[i]);
                literal = (String) v[0];
                want[i] = v[1];
            }
            sql.append(", ").append(literal == null ? "NULL" : quote(literal));
        }
        expected.put(id, want);
        return sql.append(')').toString();
    }

    /** A literal of {@code column}'s type and the value expected back. */
    private Object[] value(String column) {
        switch (column) {
            case "c_bool":
                boolean b = random.nextBoolean();
                return pair(Boolean.toString(b), b);
            case "c_bytea":
                byte[] bytes = new byte[random.nextInt(5) == 0 ? 0 : random.nextInt(10) == 0 ? random.nextInt(3000) : 17];
                random.nextBytes(bytes);
                return pair("\\x" + HexFormat.of().formatHex(bytes), bytes);
            case "c_int2":
                return integer(Short.MIN_VALUE, Short.MAX_VALUE);
            case "c_int4":
                return integer(Integer.MIN_VALUE, Integer.MAX_VALUE);
            case "c_int8":
                return integer(Long.MIN_VALUE, Long.MAX_VALUE);
            case "c_oid":
            case "c_xid":
            case "c_cid":
                return integer(0, 0xFFFF_FFFFL);
            case "c_float4":
                return float4();
            case "c_float8":
                return float8();
            case "c_num":
                return numeric();
            case "c_num12":
                return constrainedNumeric(8, 4);
            case "c_num38":
                return constrainedNumeric(28, 10);
            case "c_date":
                return date();
            case "c_time":
                return time(6);
            case "c_time0":
                return time(0);
            case "c_ts":
                return timestamp(false, 6);
            case "c_ts3":
                return timestamp(false, 3);
            case "c_tstz":
            case "c_tstz6":
                return timestamp(true, 6);
            case "c_uuid":
                UUID u = pick(5) ? new UUID(0, 0) : pick(5) ? new UUID(-1, -1) : new UUID(random.nextLong(), random.nextLong());
                return pair(u.toString(), u);
            case "c_text":
                String t = text(random.nextInt(10) == 0 ? 3000 : 40);
                return pair(t, t);
            case "c_varchar":
                String v = text(20);
                return pair(v, v);
            case "c_char":
                String c = text(7);
                return pair(c, c + " ".repeat(7 - c.codePointCount(0, c.length())));
            case "c_name":
                String n = text(15); // at most 60 bytes: a name holds 63
                return pair(n, n);
            case "c_json":
                String j = json(3);
                return pair(j, j);
            case "c_jsonb":
                return pair(json(3), UNCHECKED);
            default:
                throw new IllegalArgumentException(column);
        }
    }

    private boolean pick(int oneIn) {
        return random.nextInt(oneIn) == 0;
    }

    private static Object[] pair(String literal, Object value) {
        return new Object[] {literal, value};
    }

    private Object[] integer(long min, long max) {
        long[] edges = {min, max, 0, -1, 1, min + 1, max - 1, max / 2 + 1};
        long v;
        if (pick(3)) {
            v = edges[random.nextInt(edges.length)];
            v = v < min ? 0 : v;
        } else {
            v = min == Long.MIN_VALUE ? random.nextLong() : random.nextLong(min, max + 1);
        }
        return pair(Long.toString(v), v);
    }

    private Object[] float4() {
        float[] edges = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, 0.0f, Float.MIN_VALUE,
            -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, 0.1f, 1.0f / 3};
        float f = pick(3) ? edges[random.nextInt(edges.length)]
                : pick(4) ? Float.intBitsToFloat(random.nextInt(0x0080_0000)) // subnormal
                : Float.intBitsToFloat(random.nextInt());
        if (Float.isNaN(f)) {
            return pair("NaN", Float.NaN);
        }
        return pair(Float.isInfinite(f) ? (f > 0 ? "Infinity" : "-Infinity") : Float.toString(f), f);
    }

    private Object[] float8() {
        double[] edges = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0, Double.MIN_VALUE,
            -Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE, -Double.MAX_VALUE, 0.1, 1.0 / 3};
        double d = pick(3) ? edges[random.nextInt(edges.length)]
                : pick(4) ? Double.longBitsToDouble(random.nextLong(0x0010_0000_0000_0000L)) // subnormal
                : Double.longBitsToDouble(random.nextLong());
        if (Double.isNaN(d)) {
            return pair("NaN", Double.NaN);
        }
        return pair(Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : Double.toString(d), d);
    }

    private Object[] numeric() {
        String[] edges = {"NaN", "Infinity", "-Infinity", "0", "0.000", "-0.00", "1.1000", "10000", "0.0001", "-0.0001",
            "123456789012345678", "99999999", "100000000", "0.00010000", "9999.9999", "10000.0001", "1000000000000.0000",
            "1e-500", "-1e500", "1.23e5", "-12345678901234567890.12345678901234567890", "0.1", "-1", "1E-1000",
            "0." + "0".repeat(16382) + "1"};
        String text = pick(3) ? edges[random.nextInt(edges.length)] : digits(pick(10) ? 1000 : 40, pick(10) ? 1000 : 40);
        switch (text) {
            case "NaN":
                return pair(text, SpecialValue.NAN);
            case "Infinity":
                return pair(text, SpecialValue.POSITIVE_INFINITY);
            case "-Infinity":
                return pair(text, SpecialValue.NEGATIVE_INFINITY);
            default:
                BigDecimal d = new BigDecimal(text);
                return pair(text, d.scale() < 0 ? d.setScale(0) : d);
        }
    }

    /** A numeric of at most {@code integerDigits} before the point, rounded by the column to {@code scale}. */
    private Object[] constrainedNumeric(int integerDigits, int scale) {
        if (pick(20)) {
            return pair("NaN", SpecialValue.NAN);
        }
        String[] edges = {"0", "1.1000", "10000", "0.0001", "-0.0001", "-0.00005", "0.00005", "1.00001", "-9999.99999"};
        String text = pick(4) ? edges[random.nextInt(edges.length)]
                : digits(1 + random.nextInt(integerDigits - 1), random.nextInt(scale + 4));
        return pair(text, new BigDecimal(text).setScale(scale, RoundingMode.HALF_UP));
    }

    /** A decimal literal of up to {@code before} digits before the point and {@code after} after it. */
    private String digits(int before, int after) {
        StringBuilder sb = new StringBuilder(random.nextBoolean() ? "-" : "");
        int n = 1 + random.nextInt(before);
        for (int i = 0; i < n; i++) {
            sb.append(digit());
        }
        int m = random.nextInt(after + 1);
        if (m > 0) {
            sb.append('.');
            for (int i = 0; i < m; i++) {
                sb.append(digit());
            }
        }
        return sb.toString();
    }

    /** A digit, zero half of the time: base-10000 groups with zeros at either end. */
    private char digit() {
        return random.nextBoolean() ? '0' : (char) ('0' + random.nextInt(10));
    }

    private Object[] date() {
        if (pick(15)) {
            return random.nextBoolean() ? pair("infinity", SpecialValue.POSITIVE_INFINITY)
                    : pair("-infinity", SpecialValue.NEGATIVE_INFINITY);
        }
        LocalDate[] edges = {LocalDate.of(-4713, 11, 24), LocalDate.of(5874897, 12, 31), LocalDate.of(-43, 3, 15),
            LocalDate.of(0, 12, 31), LocalDate.of(1, 1, 1), LocalDate.of(2000, 1, 1), LocalDate.of(1999, 12, 31),
            LocalDate.of(1970, 1, 1), LocalDate.of(2000, 2, 29)};
        LocalDate d = pick(3) ? edges[random.nextInt(edges.length)]
                : LocalDate.ofEpochDay(pick(2) ? random.nextLong(MIN_DAY, MAX_DAY + 1) : random.nextLong(-40_000, 50_000));
        return pair(dateText(d), d);
    }

    private Object[] time(int precision) {
        long micros = pick(8) ? (random.nextBoolean() ? 0 : 86_400_000_000L) : random.nextLong(86_400_000_000L);
        if (precision == 0 && !pick(4)) {
            micros -= micros % 1_000_000L; // else the column rounds it, which the test does not predict
        }
        String text = pick(10) && micros == 86_400_000_000L ? "24:00:00" : timeText(micros);
        boolean exact = precision == 6 || micros % 1_000_000L == 0;
        return pair(text, exact ? Duration.ofNanos(micros * 1000) : UNCHECKED);
    }

    private Object[] timestamp(boolean withZone, int precision) {
        if (pick(15)) {
            return random.nextBoolean() ? pair("infinity", SpecialValue.POSITIVE_INFINITY)
                    : pair("-infinity", SpecialValue.NEGATIVE_INFINITY);
        }
        LocalDateTime[] edges = {LocalDateTime.of(-4713, 11, 24, 0, 0), LocalDateTime.of(294276, 12, 31, 23, 59, 59),
            LocalDateTime.of(-43, 3, 15, 12, 0), LocalDateTime.of(2000, 1, 1, 0, 0), LocalDateTime.of(1999, 12, 31, 23, 59, 59),
            LocalDateTime.of(1970, 1, 1, 0, 0), LocalDateTime.of(0, 12, 31, 23, 59, 59)};
        long second = pick(3) ? edges[random.nextInt(edges.length)].toEpochSecond(ZoneOffset.UTC)
                : pick(2) ? random.nextLong(MIN_SECOND, MAX_SECOND + 1) : random.nextLong(-5_000_000_000L, 5_000_000_000L);
        int micros = pick(4) ? (random.nextBoolean() ? 0 : 999_999) : random.nextInt(1_000_000);
        if (precision < 6 && (second == MAX_SECOND || !pick(4))) {
            micros -= micros % 1000; // else rounded by the column (past the greatest timestamp at the end)
        }
        LocalDateTime at = LocalDateTime.ofEpochSecond(second, micros * 1000, ZoneOffset.UTC);
        boolean exact = precision == 6 || micros % 1000 == 0;
        if (!withZone) {
            return pair(timestampText(at, ""), exact ? at : UNCHECKED);
        }
        ZoneOffset[] offsets = {ZoneOffset.UTC, ZoneOffset.ofHoursMinutes(5, 30), ZoneOffset.ofHours(-8),
            ZoneOffset.ofHoursMinutesSeconds(-3, -15, -20)};
        // the greatest and least timestamps only in UTC: elsewhere they are past the range
        boolean edge = second > MAX_SECOND - 86_400 || second < MIN_SECOND + 86_400;
        ZoneOffset offset = edge ? ZoneOffset.UTC : offsets[random.nextInt(offsets.length)];
        String zone = offset.equals(ZoneOffset.UTC) ? "+00" : offset.getId();
        return pair(timestampText(at, zone), exact ? at.toInstant(offset) : UNCHECKED);
    }

    private static String dateText(LocalDate d) {
        int year = d.getYear();
        String text = String.format("%04d-%02d-%02d", year <= 0 ? 1 - year : year, d.getMonthValue(), d.getDayOfMonth());
        return year <= 0 ? text + " BC" : text;
    }

    private static String timeText(long micros) {
        long s = micros / 1_000_000L;
        return String.format("%02d:%02d:%02d.%06d", s / 3600, s / 60 % 60, s % 60, micros % 1_000_000L);
    }

    private static String timestampText(LocalDateTime at, String zone) {
        int year = at.getYear();
        String text = String.format("%04d-%02d-%02d %02d:%02d:%02d.%06d%s", year <= 0 ? 1 - year : year,
                at.getMonthValue(), at.getDayOfMonth(), at.getHour(), at.getMinute(), at.getSecond(), at.getNano() / 1000,
                zone);
        return year <= 0 ? text + " BC" : text;
    }

    /** Up to {@code maxCodePoints} code points, edges among them (whitespace, quotes, backslashes, multi-byte). */
    private String text(int maxCodePoints) {
        int n = pick(6) ? 0 : random.nextInt(maxCodePoints + 1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.appendCodePoint(pick(3) ? 0x20 + random.nextInt(0x5F) : CODE_POINTS[random.nextInt(CODE_POINTS.length)]);
        }
        return sb.toString();
    }

    /** A JSON document with nesting, escapes, unicode and numbers as written. */
    private String json(int depth) {
        int kind = depth == 0 ? 2 + random.nextInt(4) : random.nextInt(6);
        switch (kind) {
            case 0: {
                StringBuilder sb = new StringBuilder("{");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : random.nextBoolean() ? ", " : ",").append(jsonString()).append(": ")
                            .append(json(depth - 1));
                }
                return sb.append('}').toString();
            }
            case 1: {
                StringBuilder sb = new StringBuilder("[");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : ", ").append(json(depth - 1));
                }
                return sb.append(']').toString();
            }
            case 2:
            case 3:
                return jsonString();
            case 4: {
                String[] numbers = {"0", "-0", "1.50", "1e400", "-12345678901234567890.0001", "2.5E-3", "42"};
                return numbers[random.nextInt(numbers.length)];
            }
            default: {
                String[] words = {"true", "false", "null"};
                return words[random.nextInt(words.length)];
            }
        }
    }

    private String jsonString() {
        String[] escapes = {"\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83c\\udf89", "\u00e9", "\u4e2d",
            "\uD83D\uDE00", "'", " ", "\u2028"};
        StringBuilder sb = new StringBuilder("\"");
        int n = random.nextInt(8);
        for (int i = 0; i < n; i++) {
            sb.append(pick(2) ? escapes[random.nextInt(escapes.length)] : String.valueOf((char) ('a' + random.nextInt(26))));
        }
        return sb.append('"').toString();
    }

    /** A string literal (standard_conforming_strings: only the quote is doubled). */
    private static String quote(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static String show(Object v) {
        if (v instanceof byte[] bytes) {
            return "\\x" + HexFormat.of().formatHex(bytes);
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString() + " scale " + d.scale();
        }
        if (v instanceof String s) {
            return "\"" + s + "\" " + HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
        }
        return String.valueOf(v);
    }

    private static String type(Object v) {
        return v == null ? "null" : v.getClass().getSimpleName();
    }
}
