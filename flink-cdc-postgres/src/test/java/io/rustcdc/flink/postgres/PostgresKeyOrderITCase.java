package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.KeyOrderOracle;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PostgreSQL's key order against the server's: random values (special values, ties of different
 * scale, prefixes, nulls) of every type the connector chunks, decoded by a snapshot read, compared
 * pairwise by {@link PostgresKeyOrder} and by the server's {@code ORDER BY}. Seeded; the seed is printed.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresKeyOrderITCase {
    private static final int ROWS = 120;

    /** Column, declared type, and a generator of one value's SQL literal (null: SQL NULL). */
    private static final class Column {
        final String name;
        final String type;
        final Function<Random, String> literal;

        Column(String name, String type, Function<Random, String> literal) {
            this.name = name;
            this.type = type;
            this.literal = literal;
        }
    }

    private static final List<Column> COLUMNS = List.of(
            new Column("c_int2", "int2",
                    r -> pick(r, "-32768", "32767", "0", "-1", "1", String.valueOf(r.nextInt(65536) - 32768))),
            new Column("c_int4", "int4", r -> pick(r, "-2147483648", "2147483647", "0", String.valueOf(r.nextInt()),
                    String.valueOf(r.nextInt(20) - 10))),
            new Column("c_int8", "int8", r -> pick(r, "-9223372036854775808", "9223372036854775807", "0",
                    String.valueOf(r.nextLong()), String.valueOf(r.nextInt(20) - 10))),
            new Column("c_oid", "oid", r -> pick(r, "0", "4294967295", "2147483648", String.valueOf(r.nextLong() & 0xffffffffL))),
            new Column("c_numeric", "numeric", PostgresKeyOrderITCase::numeric),
            new Column("c_numeric_scaled", "numeric(20, 6)", r -> decimal(r, 10, 6)),
            new Column("c_uuid", "uuid", r -> "'" + uuid(r) + "'"),
            new Column("c_bytea", "bytea", r -> "'\\x" + HexFormat.of().formatHex(bytes(r)) + "'"),
            new Column("c_date", "date", r -> pick(r, "'infinity'", "'-infinity'", "'" + date(r) + "'", "'" + date(r) + "'")),
            new Column("c_timestamp", "timestamp", r -> pick(r, "'infinity'", "'-infinity'", "'" + timestamp(r, "") + "'",
                    "'" + timestamp(r, "") + "'")),
            new Column("c_timestamp3", "timestamp(3)", r -> "'" + timestamp(r, "") + "'"),
            new Column("c_timestamptz", "timestamptz", r -> pick(r, "'infinity'", "'-infinity'",
                    "'" + timestamp(r, pick(r, "+00", "+05:30", "-11")) + "'")));

    @Test
    void keyOrderAgreesWithTheServersOrderBy(PostgresDatabase db) throws SQLException {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        StringBuilder create = new StringBuilder("CREATE TABLE ordered (id int PRIMARY KEY");
        for (Column c : COLUMNS) {
            create.append(", ").append(c.name).append(' ').append(c.type);
        }
        db.execute("DROP TABLE IF EXISTS ordered", create.append(')').toString(),
                "GRANT SELECT ON ordered TO " + db.replicationUser());
        List<String> inserts = new ArrayList<>();
        List<String> earlier = new ArrayList<>();
        for (int id = 0; id < ROWS; id++) {
            StringBuilder row = new StringBuilder("INSERT INTO ordered VALUES (" + id);
            for (int i = 0; i < COLUMNS.size(); i++) {
                String literal = random.nextInt(12) == 0 ? "NULL" : COLUMNS.get(i).literal.apply(random);
                // ties: now and then a value of an earlier row again
                if (id > 0 && random.nextInt(8) == 0) {
                    literal = earlier.get(random.nextInt(id) * COLUMNS.size() + i);
                }
                earlier.add(literal);
                row.append(", ").append(literal);
            }
            inserts.add(row.append(')').toString());
        }
        db.execute(inserts.toArray(new String[0]));

        TableId table = TableId.of(db.name(), "public", "ordered");
        Map<String, Map<Integer, Object>> decoded = new HashMap<>();
        TableDescription description;
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session =
                PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession()) {
            description = session.describe(table);
            List<ChangeEvent> rows = new ArrayList<>();
            session.readChunk(description, List.of("id"), null, null, rows::add);
            for (ChangeEvent e : rows) {
                int id = ((Long) e.after().get("id")).intValue();
                for (Column c : COLUMNS) {
                    decoded.computeIfAbsent(c.name, k -> new HashMap<>()).put(id, e.after().get(c.name));
                }
            }
        }
        RowType rowType = description.rowType();
        int pairs = 0;
        for (Column c : COLUMNS) {
            pairs += KeyOrderOracle.check(PostgresKeyOrder.INSTANCE, c.name + " " + c.type,
                    rowType.type(rowType.indexOf(c.name)), decoded.get(c.name), ranks(db, c.name), seed);
        }
        assertThat(pairs).isEqualTo(COLUMNS.size() * ROWS * ROWS);
    }

    private static Map<Integer, Long> ranks(PostgresDatabase db, String column) throws SQLException {
        Map<Integer, Long> ranks = new HashMap<>();
        try (Connection c = db.admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, DENSE_RANK() OVER (ORDER BY " + column + ") FROM ordered")) {
            while (rs.next()) {
                ranks.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return ranks;
    }

    private static String pick(Random r, String... options) {
        return options[r.nextInt(options.length)];
    }

    private static String numeric(Random r) {
        switch (r.nextInt(8)) {
            case 0:
                return pick(r, "'NaN'", "'Infinity'", "'-Infinity'");
            case 1:
                // the same number at another scale: equal in the server's order
                return pick(r, "1.5", "1.50", "1.500000", "-0.0", "0", "0.00");
            case 2:
                return new BigDecimal(r.nextInt(2000) - 1000).scaleByPowerOfTen(r.nextInt(60) - 30).toPlainString();
            default:
                return decimal(r, 1 + r.nextInt(25), r.nextInt(12));
        }
    }

    private static String decimal(Random r, int digits, int scale) {
        StringBuilder s = new StringBuilder(r.nextBoolean() ? "-" : "");
        for (int i = 0; i < digits; i++) {
            s.append(r.nextInt(10));
        }
        if (scale > 0) {
            s.append('.');
            for (int i = 0; i < scale; i++) {
                s.append(r.nextInt(10));
            }
        }
        return s.toString();
    }

    /** UUIDs from few distinct bytes, so that high bits and shared prefixes are common. */
    static String uuid(Random r) {
        byte[] b = new byte[16];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) new int[] {0x00, 0x01, 0x7f, 0x80, 0xff}[r.nextInt(5)];
        }
        String hex = HexFormat.of().formatHex(b);
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    /** Up to 5 bytes from few distinct ones: empty values, prefixes and high bits are common. */
    static byte[] bytes(Random r) {
        byte[] b = new byte[r.nextInt(6)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) new int[] {0x00, 0x01, 0x7f, 0x80, 0xff}[r.nextInt(5)];
        }
        return b;
    }

    /** A date from 4000 BC to 9999 AD in PostgreSQL's notation (BC years counted from 1). */
    private static String date(Random r) {
        LocalDate d = LocalDate.ofEpochDay(LocalDate.of(-3999, 1, 1).toEpochDay()
                + (long) r.nextInt((int) (LocalDate.of(9999, 12, 31).toEpochDay() - LocalDate.of(-3999, 1, 1).toEpochDay())));
        if (r.nextInt(4) == 0) {
            d = LocalDate.of(2024, 1, 1).plusDays(r.nextInt(3)); // close values
        }
        return d.getYear() > 0 ? d.toString() : String.format("%04d-%02d-%02d BC", 1 - d.getYear(), d.getMonthValue(),
                d.getDayOfMonth());
    }

    /** A timestamp with {@code offset} (none: empty) written after the time, before any BC. */
    private static String timestamp(Random r, String offset) {
        String date = date(r);
        String bc = date.endsWith(" BC") ? " BC" : "";
        String day = date.replace(" BC", "");
        String time = String.format("%02d:%02d:%02d.%06d", r.nextInt(24), r.nextInt(60), r.nextInt(60),
                r.nextInt(3) == 0 ? r.nextInt(3) : r.nextInt(1_000_000));
        return day + " " + time + offset + bc;
    }
}
