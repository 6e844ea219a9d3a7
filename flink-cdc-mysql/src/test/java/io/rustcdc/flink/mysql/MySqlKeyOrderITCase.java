package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.testing.ChunkedReads;
import io.rustcdc.flink.testing.KeyOrderOracle;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MySQL's and MariaDB's key order against the server's: random values (both signednesses and their
 * edges, padded and prefix binaries, nulls, zero dates and invalid dates the server keeps, MariaDB's
 * UUIDs of every version and variant) of every type the connector chunks, decoded by a snapshot read,
 * compared pairwise by {@link MySqlKeyOrder} and by the server's {@code ORDER BY}; and UUID keys
 * split into chunks of 3 rows whose bounds the server found, each row read in exactly its chunk.
 * Seeded; the seed is printed ({@code -Drustcdc.keyorder.seed=N} replays a run).
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlKeyOrderITCase {
    private static final int ROWS = 120;
    private static final String OPTION = "scan.incremental.snapshot.chunk.key-column";
    /** MariaDB's UUID (10.7+), nullable. */
    private static final Column UUID = new Column("c_uuid", "UUID", MySqlKeyOrderITCase::uuid);
    /** Nodes and clock sequences that time-based UUIDs share, so that their times decide. */
    private static final long[] NODES = {0x000000000001L, 0x0242ac110002L, 0xffffffffffffL};
    private static final int[] CLOCKS = {0x8000, 0x9a3c, 0xbfff};
    /** Zero dates and dates such as 2024-02-30 are kept as written in this mode. */
    private static final String LAX_DATES = "SET SESSION sql_mode = 'ALLOW_INVALID_DATES'";

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
            new Column("c_tinyint", "TINYINT", r -> pick(r, "-128", "127", "0", String.valueOf(r.nextInt(256) - 128))),
            new Column("c_tinyint_u", "TINYINT UNSIGNED", r -> pick(r, "0", "255", "128", String.valueOf(r.nextInt(256)))),
            new Column("c_smallint_u", "SMALLINT UNSIGNED", r -> pick(r, "0", "65535", String.valueOf(r.nextInt(65536)))),
            new Column("c_mediumint", "MEDIUMINT",
                    r -> pick(r, "-8388608", "8388607", String.valueOf(r.nextInt(1 << 24) - (1 << 23)))),
            new Column("c_int", "INT", r -> pick(r, "-2147483648", "2147483647", "-1", String.valueOf(r.nextInt()))),
            new Column("c_int_u", "INT UNSIGNED", r -> pick(r, "0", "4294967295", "2147483648",
                    String.valueOf(r.nextLong() & 0xffffffffL))),
            new Column("c_bigint", "BIGINT", r -> pick(r, "-9223372036854775808", "9223372036854775807", "0",
                    String.valueOf(r.nextLong()))),
            new Column("c_bigint_u", "BIGINT UNSIGNED", r -> pick(r, "0", "18446744073709551615", "9223372036854775808",
                    "9223372036854775807", Long.toUnsignedString(r.nextLong()))),
            new Column("c_year", "YEAR", r -> pick(r, "0", "1901", "2155", String.valueOf(1901 + r.nextInt(255)))),
            new Column("c_decimal", "DECIMAL(30, 10)", r -> decimal(r, 1 + r.nextInt(20), r.nextInt(11))),
            new Column("c_decimal0", "DECIMAL(12, 0)", r -> decimal(r, 1 + r.nextInt(12), 0)),
            new Column("c_binary", "BINARY(4)", r -> hex(bytes(r, 4))),
            new Column("c_varbinary", "VARBINARY(6)", r -> hex(bytes(r, 6))),
            new Column("c_blob", "BLOB", r -> hex(bytes(r, 6))),
            new Column("c_date", "DATE", r -> "'" + date(r) + "'"),
            new Column("c_datetime", "DATETIME", r -> "'" + date(r) + " " + time(r, 0) + "'"),
            new Column("c_datetime6", "DATETIME(6)", r -> "'" + date(r) + " " + time(r, 6) + "'"),
            new Column("c_timestamp3", "TIMESTAMP(3) NULL", r -> r.nextInt(10) == 0 ? "'0000-00-00 00:00:00'"
                    : "'" + LocalDate.of(1970 + r.nextInt(67), 1 + r.nextInt(12), 1 + r.nextInt(28)) + " " + time(r, 3) + "'"));

    @Test
    void keyOrderAgreesWithTheServersOrderBy(MySqlDatabase db) throws SQLException {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        List<Column> columns = new ArrayList<>(COLUMNS);
        if (db.server().isMariaDb()) {
            columns.add(UUID);
        }
        StringBuilder create = new StringBuilder("CREATE TABLE ordered (id INT PRIMARY KEY");
        for (Column c : columns) {
            create.append(", ").append(c.name).append(' ').append(c.type);
        }
        List<String> statements = new ArrayList<>(List.of(LAX_DATES, "SET SESSION time_zone = '+00:00'",
                "DROP TABLE IF EXISTS ordered", create.append(')').toString()));
        List<String> earlier = new ArrayList<>();
        for (int id = 0; id < ROWS; id++) {
            StringBuilder row = new StringBuilder("INSERT INTO ordered VALUES (" + id);
            for (int i = 0; i < columns.size(); i++) {
                String literal = random.nextInt(12) == 0 ? "NULL" : columns.get(i).literal.apply(random);
                if (id > 0 && random.nextInt(8) == 0) {
                    literal = earlier.get(random.nextInt(id) * columns.size() + i); // a tie with an earlier row
                }
                earlier.add(literal);
                row.append(", ").append(literal);
            }
            statements.add(row.append(')').toString());
        }
        db.execute(statements.toArray(new String[0]));

        TableId table = TableId.of(db.name(), db.name(), "ordered");
        Map<String, Map<Integer, Object>> decoded = new HashMap<>();
        TableDescription description;
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            description = session.describe(table);
            session.readChunk(description, List.of("id"), null, null, e -> {
                int id = ((Long) e.after().get("id")).intValue();
                for (Column c : columns) {
                    decoded.computeIfAbsent(c.name, k -> new HashMap<>()).put(id, e.after().get(c.name));
                }
            });
        }
        RowType rowType = description.rowType();
        int pairs = 0;
        for (Column c : columns) {
            int field = rowType.indexOf(c.name);
            pairs += KeyOrderOracle.check(connector.keyOrder(), c.name + " " + c.type, rowType.type(field),
                    description.collation(field), decoded.get(c.name), ranks(db, c.name), seed);
        }
        assertThat(pairs).isEqualTo(columns.size() * ROWS * ROWS);
    }

    @Test
    void uuidKeysSplitIntoChunksOfTheServersRanges(MySqlDatabase db) {
        Assumptions.assumeTrue(db.server().isMariaDb(), "UUID is MariaDB's");
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        List<String> statements = new ArrayList<>(List.of("DROP TABLE IF EXISTS uuid_keyed",
                "DROP TABLE IF EXISTS pair_keyed", "CREATE TABLE uuid_keyed (k UUID PRIMARY KEY, v INT)",
                "CREATE TABLE pair_keyed (a INT, b UUID, v INT, PRIMARY KEY (a, b))"));
        List<String> single = new ArrayList<>();
        List<String> pairs = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            single.add("(" + uuid(random) + ", " + i + ")");
            pairs.add("(" + random.nextInt(3) + ", " + uuid(random) + ", " + i + ")");
        }
        statements.add("INSERT IGNORE INTO uuid_keyed VALUES " + String.join(", ", single));
        statements.add("INSERT IGNORE INTO pair_keyed VALUES " + String.join(", ", pairs));
        db.execute(statements.toArray(new String[0]));
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            for (String name : List.of("uuid_keyed", "pair_keyed")) {
                TableDescription table = session.describe(TableId.of(db.name(), db.name(), name));
                ChunkKey key = ChunkKey.of(table, connector.keyOrder(), null, OPTION);
                assertThat(key.splittable()).as(name + " " + key.collations()).isTrue();
                int count = Integer.parseInt(db.queryValue("SELECT COUNT(*) FROM " + name));
                assertThat(ChunkedReads.countInChunks(session, table, key, 3)).as(name + " (seed " + seed + ")")
                        .isEqualTo(count);
            }
        }
    }

    /**
     * The rows' dense ranks in the server's order of {@code column}, in the mode that keeps zero dates:
     * Oracle MySQL's window functions in a strict mode (NO_ZERO_IN_DATE) rank every date with zero
     * parts alike, while its ORDER BY (and MariaDB's in either mode) sorts them by their fields.
     */
    private static Map<Integer, Long> ranks(MySqlDatabase db, String column) throws SQLException {
        Map<Integer, Long> ranks = new HashMap<>();
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            s.execute(LAX_DATES);
            try (ResultSet rs = s.executeQuery("SELECT id, DENSE_RANK() OVER (ORDER BY " + column + ") FROM ordered")) {
                while (rs.next()) {
                    ranks.put(rs.getInt(1), rs.getLong(2));
                }
            }
        }
        return ranks;
    }

    /**
     * A UUID literal: half of them time-based (version 1, the variant bit set) from few nodes and
     * clock sequences, which MariaDB stores swapped; the others of any version byte (0x00, 0x01 to 0x5F
     * are swapped with the variant bit, 0x60 and up are not) and any variant byte, their time fields
     * often zero or all ones. Never version 8 or more with a variant byte of 0x01 to 0x80, which the
     * server refuses as text.
     */
    private static String uuid(Random r) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) new int[] {0x00, 0xff, r.nextInt(256), r.nextInt(256)}[r.nextInt(4)];
        }
        for (int i = 10; i < 16; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        if (r.nextBoolean()) {
            b[6] = (byte) (0x10 | r.nextInt(16));
            int clock = CLOCKS[r.nextInt(CLOCKS.length)];
            b[8] = (byte) (clock >> 8);
            b[9] = (byte) clock;
            long node = NODES[r.nextInt(NODES.length)];
            for (int i = 0; i < 6; i++) {
                b[15 - i] = (byte) (node >> (8 * i));
            }
        } else {
            b[6] = (byte) (r.nextBoolean() ? new int[] {0x00, 0x01, 0x0f, 0x5f, 0x60, 0x7f, 0x80, 0xff}[r.nextInt(8)]
                    : r.nextInt(16) << 4 | r.nextInt(16));
            b[8] = (byte) (r.nextBoolean() ? new int[] {0x00, 0x01, 0x7f, 0x80, 0x81, 0xbf, 0xc0, 0xff}[r.nextInt(8)]
                    : r.nextInt(256));
            if ((b[6] & 0x80) != 0 && (b[8] & 0xff) >= 0x01 && (b[8] & 0xff) <= 0x80) {
                b[8] = 0;
            }
        }
        String hex = HexFormat.of().formatHex(b);
        return "'" + hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20) + "'";
    }

    private static String pick(Random r, String... options) {
        return options[r.nextInt(options.length)];
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

    /** Up to {@code max} bytes from few distinct ones: empty values, prefixes, trailing zeros and high bits are common. */
    private static byte[] bytes(Random r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) new int[] {0x00, 0x01, 0x20, 0x7f, 0x80, 0xff}[r.nextInt(6)];
        }
        return b;
    }

    private static String hex(byte[] b) {
        return b.length == 0 ? "''" : "X'" + HexFormat.of().formatHex(b) + "'";
    }

    /** A date of 1000 to 9999, now and then a zero date or one with zero or invalid parts. */
    private static String date(Random r) {
        switch (r.nextInt(10)) {
            case 0:
                return "0000-00-00";
            case 1:
                return pick(r, "2024-00-00", "2024-01-00", "2024-00-15", "2023-12-31", "2024-01-01", "2024-02-30",
                        "2024-02-31", "0000-01-01", "0000-00-01");
            case 2:
                return LocalDate.of(2024, 1, 1).plusDays(r.nextInt(3) - 1).toString();
            default:
                return LocalDate.of(1000 + r.nextInt(9000), 1 + r.nextInt(12), 1 + r.nextInt(28)).toString();
        }
    }

    private static String time(Random r, int digits) {
        String t = String.format("%02d:%02d:%02d", r.nextInt(24), r.nextInt(60), r.nextInt(60));
        if (digits == 0) {
            return t;
        }
        int fraction = r.nextInt(3) == 0 ? r.nextInt(3) : r.nextInt((int) Math.pow(10, digits));
        return t + "." + String.format("%0" + digits + "d", fraction);
    }
}
