package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Random values, written by SQL and read both by a snapshot chunk and from the binlog: both paths
 * give equal rows. On Oracle MySQL the JSON column is binary in the binlog and text in a query, so
 * this compares our binary JSON decoder with the server's own text, byte for byte. Each test prints
 * its seed; replay one with {@code -Drustcdc.values.seed=<seed>}.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlValuesITCase {
    private static final int ROWS = 150;

    @Test
    void randomJsonDocumentsAreTheServersTextFromTheBinlog(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        Random random = seeded("JSON");
        boolean mysql = !db.server().isMariaDb(); // MariaDB's JSON is text, which holds no binary values
        db.execute("CREATE TABLE json_values (id INT PRIMARY KEY, j JSON)");
        List<String> inserts = new ArrayList<>(List.of("SET SESSION time_zone = '+00:00'"));
        for (int id = 1; id <= ROWS; id++) {
            inserts.add("INSERT INTO json_values VALUES (" + id + ", " + new RandomJson(random, mysql).document() + ")");
        }
        // fixed cases: each kind of scalar at the top, values only functions make, and the large format
        String big = "REPEAT('x', 70000)";
        inserts.add("INSERT INTO json_values VALUES (1001, JSON_OBJECT('d', CAST('2024-02-29 23:59:58.123456' AS "
                + "DATETIME(6)), 'day', CAST('2024-02-29' AS DATE), 't', CAST('-838:59:59' AS TIME), 't2', "
                + "CAST('27:00:00.5' AS TIME(1)), 'n', 2.50, 'neg', -0.010, " + (mysql ? "'b', CAST(x'00ff10' AS BINARY), " : "")
                + "'ts', CAST('1970-01-01 00:00:01' AS DATETIME)))");
        inserts.add("INSERT INTO json_values VALUES (1002, JSON_ARRAY(" + big + ", 1, -1, 65536, -65537, 4294967296, "
                + "18446744073709551615, 1.5, true, false, NULL, JSON_OBJECT('k', " + big + ")))");
        inserts.add("INSERT INTO json_values VALUES (1003, '\"\\\\u0000\\\\u001f\\\\u007f"
                + "\\\\\\\\\\\\\"\\\\/\\\\b\\\\f\\\\n\\\\r\\\\t"
                + "\u00e9\u4e2d\uD83C\uDF89\"')");
        inserts.add("INSERT INTO json_values VALUES (1004, '-0.0'), (1005, '1e300'), (1006, '123456789012345678901'), "
                + "(1007, '0.000001'), (1008, '1.7976931348623157e308'), (1009, '5e-324'), (1010, '[]'), (1011, '{}'), "
                + "(1012, 'null'), (1013, '-9223372036854775808'), (1014, '100000000000000000'), (1015, '1e15'), "
                + "(1016, '1e16'), (1017, '0.0001'), (1018, '0.00001'), (1019, '123456789012345.6')");
        StringBuilder powersOfTwo = new StringBuilder("[");
        for (int k = -1074; k <= 1023; k++) { // where the shortest digits lie on the far side of some of them
            powersOfTwo.append(k == -1074 ? "" : ",").append(Math.scalb(1.0, k));
        }
        inserts.add("INSERT INTO json_values VALUES (1021, '" + powersOfTwo.append("]") + "')");
        if (mysql) { // base64 text with a line break after 76 characters
            inserts.add("INSERT INTO json_values VALUES (1020, JSON_OBJECT('bin', CAST(REPEAT(x'fe', 100) AS BINARY)))");
        }
        compareBothPaths(db, "json_values", inserts);
    }

    @Test
    void randomTemporalBitAndYearValuesAreEqualFromBothPaths(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        Random random = seeded("temporal");
        db.execute("CREATE TABLE temporal_values (id INT PRIMARY KEY, dt0 DATETIME, dt3 DATETIME(3), dt6 DATETIME(6), "
                + "ts1 TIMESTAMP(1) NULL, ts6 TIMESTAMP(6) NULL, t0 TIME, t2 TIME(2), t5 TIME(5), t6 TIME(6), "
                + "y YEAR, b1 BIT(1), b7 BIT(7), b33 BIT(33), b64 BIT(64), d DATE)");
        List<String> inserts = new ArrayList<>(List.of("SET SESSION time_zone = '+00:00'"));
        for (int id = 1; id <= ROWS; id++) {
            inserts.add("INSERT INTO temporal_values VALUES (" + id + ", " + datetime(random, 0, 1000) + ", "
                    + datetime(random, 3, 1000) + ", " + datetime(random, 6, 1000) + ", " + datetime(random, 1, 1970) + ", "
                    + datetime(random, 6, 1970) + ", " + time(random, 0) + ", " + time(random, 2) + ", "
                    + time(random, 5) + ", " + time(random, 6) + ", " + (random.nextInt(10) == 0 ? 0 : 1901 + random.nextInt(255))
                    + ", " + random.nextInt(2) + ", b'" + bits(random, 7) + "', b'" + bits(random, 33) + "', b'"
                    + bits(random, 64) + "', '" + date(random, 1000) + "')");
        }
        compareBothPaths(db, "temporal_values", inserts);
    }

    /**
     * Integers of every type (read by the snapshot as the driver's longs) and decimals on both sides of 18 digits (read
     * into a long and a scale where they fit): random values, the ends of each range and NULLs, equal from both paths.
     */
    @Test
    void randomIntegersAndDecimalsAreEqualFromBothPaths(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        Random random = seeded("numbers");
        String[] integers = {"TINYINT", "TINYINT UNSIGNED", "TINYINT(1)", "BOOL", "SMALLINT", "SMALLINT UNSIGNED",
            "MEDIUMINT", "MEDIUMINT UNSIGNED", "INT", "INT UNSIGNED", "INT(5) ZEROFILL", "BIGINT", "BIGINT UNSIGNED"};
        long[][] ranges = {{-128, 127}, {0, 255}, {-128, 127}, {-128, 127}, {-32768, 32767}, {0, 65535},
            {-8388608, 8388607}, {0, 16777215}, {Integer.MIN_VALUE, Integer.MAX_VALUE}, {0, 4294967295L},
            {0, 4294967295L}, {Long.MIN_VALUE, Long.MAX_VALUE}, {0, Long.MAX_VALUE}};
        int[][] decimals = {{10, 2}, {18, 4}, {18, 0}, {19, 4}, {5, 5}, {65, 30}, {20, 0}};
        StringBuilder create = new StringBuilder("CREATE TABLE number_values (id INT PRIMARY KEY");
        for (int i = 0; i < integers.length; i++) {
            create.append(", i").append(i).append(' ').append(integers[i]);
        }
        for (int[] d : decimals) {
            create.append(", d").append(d[0]).append('_').append(d[1]).append(" DECIMAL(").append(d[0]).append(", ")
                    .append(d[1]).append(')');
        }
        db.execute(create.append(')').toString());
        List<String> inserts = new ArrayList<>();
        for (int id = 1; id <= ROWS; id++) {
            StringBuilder row = new StringBuilder("INSERT INTO number_values VALUES (" + id);
            for (int i = 0; i < integers.length; i++) {
                long low = ranges[i][0];
                long high = ranges[i][1];
                int pick = random.nextInt(10);
                long any = i == integers.length - 2 ? random.nextLong() >> random.nextInt(64) // every length of digits
                        : i == integers.length - 1 ? (random.nextLong() >>> 1) >> random.nextInt(63)
                        : low + (long) (random.nextDouble() * (high - low + 1));
                String value = pick == 0 ? "NULL" : pick == 1 ? Long.toString(low) : pick == 2 ? Long.toString(high)
                        : Long.toString(any);
                if (i == integers.length - 1 && pick == 2) {
                    value = "18446744073709551615"; // BIGINT UNSIGNED's end, past a long
                }
                row.append(", ").append(value);
            }
            for (int[] d : decimals) {
                int pick = random.nextInt(10);
                String value = pick == 0 ? "NULL" : pick <= 2 ? end(pick == 1, d[0], d[1]) : decimal(random, d[0], d[1]);
                row.append(", ").append(value);
            }
            inserts.add(row.append(')').toString());
        }
        compareBothPaths(db, "number_values", inserts);
    }

    /** DECIMAL(precision, scale)'s end: all nines, negative or not. */
    private static String end(boolean negative, int precision, int scale) {
        String nines = "9".repeat(precision - scale) + (scale > 0 ? "." + "9".repeat(scale) : "");
        return (negative ? "-" : "") + (precision == scale ? "0" + nines : nines);
    }

    /** A random DECIMAL(precision, scale) literal: any number of integer digits up to the type's, signed. */
    private static String decimal(Random random, int precision, int scale) {
        StringBuilder s = new StringBuilder(random.nextBoolean() ? "-" : "");
        int whole = random.nextInt(precision - scale + 1);
        for (int i = 0; i < whole; i++) {
            s.append((char) ('0' + random.nextInt(10)));
        }
        if (whole == 0) {
            s.append('0');
        }
        if (scale > 0) {
            s.append('.');
            for (int i = 0; i < scale; i++) {
                s.append((char) ('0' + random.nextInt(10)));
            }
        }
        return s.toString();
    }

    /**
     * Spatial columns between character columns: MariaDB's table map lists a character set for each
     * GEOMETRY column, Oracle MySQL's does not, so every later column's character set depends on
     * counting them as the server does (a default set with exceptions, or one set per column).
     */
    @Test
    void spatialColumnsBetweenTextColumnsKeepEachColumnsCharacterSet(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        db.execute("CREATE TABLE geo_text_default (id INT PRIMARY KEY, g GEOMETRY, a VARCHAR(8) CHARACTER SET latin1, "
                + "p POINT, b VARCHAR(8) CHARACTER SET latin1, u VARCHAR(8) CHARACTER SET utf8mb4, "
                + "c TEXT CHARACTER SET latin1, l LINESTRING, d CHAR(4) CHARACTER SET latin1) "
                + "DEFAULT CHARSET latin1");
        db.execute("CREATE TABLE geo_text_mixed (id INT PRIMARY KEY, g GEOMETRY, a VARCHAR(8) CHARACTER SET latin1, "
                + "p POINT, u VARCHAR(8) CHARACTER SET utf8mb4, k VARCHAR(8) CHARACTER SET cp1251, "
                + "e ENUM('\u00e4', 'x') CHARACTER SET latin1, bin VARBINARY(4), l LINESTRING, "
                + "w VARCHAR(8) CHARACTER SET ucs2)");
        compareBothPaths(db, "geo_text_default", List.of("INSERT INTO geo_text_default VALUES (1, "
                + "ST_GeomFromText('POINT(1 2)'), 'caf\u00e9', ST_GeomFromText('POINT(3 4)'), '\u00fcber', "
                + "'\uD83C\uDF89', '\u00e0 la', ST_GeomFromText('LINESTRING(0 0, 1 1)'), '\u00df')"));
        compareBothPaths(db, "geo_text_mixed", List.of("INSERT INTO geo_text_mixed VALUES (1, "
                + "ST_GeomFromText('POINT(1 2)'), 'caf\u00e9', ST_GeomFromText('POINT(3 4)'), '\uD83C\uDF89', "
                + "'\u0434\u0430', '\u00e4', x'00ff', ST_GeomFromText('LINESTRING(0 0, 1 1)'), '\u20ac')"));
    }

    private static Random seeded(String what) {
        long seed = Long.getLong("rustcdc.values.seed", System.nanoTime());
        System.out.println("MySqlValuesITCase " + what + " seed " + seed + " (replay with -Drustcdc.values.seed="
                + seed + ")");
        return new Random(seed);
    }

    /** Writes the rows after the stream's start, then reads them by a snapshot chunk and from the binlog. */
    private static void compareBothPaths(MySqlDatabase db, String name, List<String> inserts) throws Exception {
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), name);
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
        }
        db.execute(inserts.toArray(new String[0]));
        int rows = Integer.parseInt(db.queryValue("SELECT COUNT(*) FROM " + name));
        Map<Object, Row> snapshot = new HashMap<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            session.readChunk(session.describe(table), List.of("id"), null, null,
                    e -> snapshot.put(e.after().get("id"), e.after()));
        }
        Map<Object, Row> stream = new HashMap<>();
        try (ChangeStream<MySqlPosition> changes = connector.openStream(start, TableFilter.all())) {
            for (ChangeEvent e : StreamTestSupport.events(changes, rows)) {
                stream.put(e.after().get("id"), e.after());
            }
        }
        assertThat(snapshot).hasSize(rows);
        for (Map.Entry<Object, Row> expected : snapshot.entrySet()) {
            String written = inserts.stream().filter(i -> i.contains("VALUES (" + expected.getKey() + ","))
                    .findFirst().orElse("");
            assertThat(render(stream.get(expected.getKey()))).as("row %s of %s, written by %s", expected.getKey(), name,
                            written)
                    .isEqualTo(render(expected.getValue()));
            assertThat(stream.get(expected.getKey())).as("row %s of %s", expected.getKey(), name)
                    .isEqualTo(expected.getValue());
        }
    }

    private static String render(Row row) {
        ChangeEvent e = ChangeEvent.builder(io.rustcdc.flink.source.model.Op.READ, TableId.of("d", "d", "t"),
                io.rustcdc.flink.source.model.SourceInfo.snapshot("mysql", null)).after(row).build();
        return io.rustcdc.flink.source.json.JsonRenderer.create().renderToString(e);
    }

    private static String datetime(Random random, int fsp, int fromYear) {
        int year = fromYear == 1970 ? 1971 + random.nextInt(66) : fromYear + random.nextInt(9000);
        return "'" + date(year, random) + String.format(" %02d:%02d:%02d", random.nextInt(24), random.nextInt(60),
                random.nextInt(60)) + fraction(random, fsp) + "'";
    }

    private static String date(Random random, int fromYear) {
        return date(fromYear + random.nextInt(9000), random);
    }

    private static String date(int year, Random random) {
        return String.format("%04d-%02d-%02d", year, 1 + random.nextInt(12), 1 + random.nextInt(28));
    }

    private static String time(Random random, int fsp) {
        int hours = random.nextInt(4) == 0 ? random.nextInt(839) : random.nextInt(24);
        String sign = random.nextBoolean() ? "-" : "";
        String fraction = fraction(random, fsp);
        if (hours == 838) {
            fraction = ""; // 838:59:59 is the largest TIME, with no fraction beyond it
        }
        return "'" + sign + String.format("%02d:%02d:%02d", hours, random.nextInt(60), random.nextInt(60)) + fraction + "'";
    }

    private static String fraction(Random random, int fsp) {
        if (fsp == 0) {
            return "";
        }
        StringBuilder digits = new StringBuilder(".");
        for (int i = 0; i < fsp; i++) {
            digits.append(random.nextInt(3) == 0 ? 0 : random.nextInt(10));
        }
        return digits.toString();
    }

    private static String bits(Random random, int n) {
        StringBuilder bits = new StringBuilder();
        for (int i = 0; i < n; i++) {
            bits.append(random.nextInt(2));
        }
        return bits.toString();
    }

    /** A random JSON document as an SQL expression (text, or built by the server's JSON functions). */
    private static final class RandomJson {
        private final Random random;
        private final boolean binaryValues;

        RandomJson(Random random, boolean binaryValues) {
            this.random = random;
            this.binaryValues = binaryValues;
        }

        String document() {
            return random.nextInt(4) == 0 ? function(0) : "'" + text(0).replace("\\", "\\\\").replace("'", "''") + "'";
        }

        /** JSON text the server parses (numbers as the parser reads them: ints, big ints, doubles). */
        private String text(int depth) {
            int kind = depth > 3 ? random.nextInt(6) : random.nextInt(9);
            switch (kind) {
                case 0:
                    return Long.toString(random.nextInt(3) == 0 ? random.nextLong() : random.nextInt(70000) - 35000);
                case 1:
                    return randomDouble();
                case 2:
                    return quoted(randomString());
                case 3:
                    return new String[] {"true", "false", "null"}[random.nextInt(3)];
                case 4:
                    return Long.toUnsignedString(random.nextLong() | Long.MIN_VALUE);
                case 5:
                    return random.nextBoolean() ? "1e" + (random.nextInt(600) - 300) : "123456789012345678901234567890";
                case 6:
                case 7: {
                    StringBuilder object = new StringBuilder("{");
                    int n = random.nextInt(6);
                    for (int i = 0; i < n; i++) {
                        object.append(i == 0 ? "" : ",").append(quoted(randomString())).append(":").append(text(depth + 1));
                    }
                    return object.append("}").toString();
                }
                default: {
                    StringBuilder array = new StringBuilder("[");
                    int n = random.nextInt(6);
                    for (int i = 0; i < n; i++) {
                        array.append(i == 0 ? "" : ", ").append(text(depth + 1));
                    }
                    return array.append("]").toString();
                }
            }
        }

        /** Values only SQL makes: decimals, dates and times, binary opaque values. */
        private String function(int depth) {
            List<String> values = new ArrayList<>();
            int n = 1 + random.nextInt(5);
            for (int i = 0; i < n; i++) {
                switch (random.nextInt(7)) {
                    case 0:
                        values.add("CAST('" + (random.nextInt(2000) - 1000) + "." + random.nextInt(1000) + "' AS DECIMAL(12,"
                                + random.nextInt(6) + "))");
                        break;
                    case 1:
                        values.add("CAST(" + datetime(random, 6, 1000) + " AS DATETIME(6))");
                        break;
                    case 2:
                        values.add("CAST(" + time(random, 6) + " AS TIME(6))");
                        break;
                    case 3:
                        values.add("CAST('" + date(random, 1000) + "' AS DATE)");
                        break;
                    case 4:
                        values.add(binaryValues ? "CAST(x'" + String.format("%016x", random.nextLong()) + "' AS BINARY)"
                                : "'no binary'");
                        break;
                    case 5:
                        values.add(depth < 2 ? function(depth + 1) : "1");
                        break;
                    default:
                        values.add("JSON_EXTRACT('" + text(2).replace("\\", "\\\\").replace("'", "''") + "', '$')");
                }
            }
            if (random.nextBoolean()) {
                return "JSON_ARRAY(" + String.join(", ", values) + ")";
            }
            StringBuilder object = new StringBuilder("JSON_OBJECT(");
            for (int i = 0; i < values.size(); i++) {
                object.append(i == 0 ? "" : ", ").append("'k").append(i).append("', ").append(values.get(i));
            }
            return object.append(")").toString();
        }

        private String randomDouble() {
            switch (random.nextInt(6)) {
                case 0:
                    return Double.toString(random.nextDouble());
                case 5: // a power of two, where the doubles below are closer together than above
                    return Double.toString(Math.scalb(1.0, random.nextInt(2098) - 1074));
                case 1:
                    return Double.toString(Double.longBitsToDouble(random.nextLong() & 0x7fefffffffffffffL)
                            * (random.nextBoolean() ? 1 : -1));
                case 2:
                    return (random.nextInt(2000) - 1000) + "." + random.nextInt(100);
                case 3:
                    return random.nextInt(100) + ".0";
                default:
                    return random.nextInt(10) + "e" + (random.nextInt(40) - 20);
            }
        }

        private String randomString() {
            StringBuilder s = new StringBuilder();
            int n = random.nextInt(12);
            for (int i = 0; i < n; i++) {
                switch (random.nextInt(6)) {
                    case 0:
                        s.append((char) random.nextInt(0x20)); // a control character
                        break;
                    case 1:
                        s.append("\"\\/'".charAt(random.nextInt(4)));
                        break;
                    case 2:
                        s.append(new String[] {"\u00e9", "\u4e2d", "\uD83C\uDF89", "\u007f", "\u2028"}[random.nextInt(5)]);
                        break;
                    default:
                        s.append((char) ('a' + random.nextInt(26)));
                }
            }
            return s.toString();
        }

        /** A JSON string literal, escaped as any JSON writer may (the server reads it, then writes its own text). */
        private static String quoted(String s) {
            StringBuilder out = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20) {
                    out.append(String.format("\\u%04X", (int) c));
                } else {
                    out.append(c);
                }
            }
            return out.append('"').toString();
        }
    }
}
