package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import io.rustcdc.flink.testing.ChunkedReads;
import io.rustcdc.flink.testing.KeyOrderOracle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SQL Server's key order against the server's: random values (edges, ties, nulls) of every type the
 * connector chunks, decoded by a snapshot read, compared pairwise by {@link SqlServerKeyOrder} and by
 * the server's {@code ORDER BY}; then tables keyed by them read in chunks. Seeded; the seed is printed
 * (skipped without a server, see {@link SqlServerDatabase}).
 */
@ExtendWith(SqlServerExtension.class)
@Timeout(300)
class SqlServerKeyOrderITCase {
    private static final int ROWS = 120;

    /** Each column's name and type, and how a random literal of it is drawn. */
    private static final Map<String, Function<Random, String>> COLUMNS = new LinkedHashMap<>();

    static {
        COLUMNS.put("c_bit BIT", r -> pick(r, "0", "1"));
        COLUMNS.put("c_tinyint TINYINT", r -> String.valueOf(r.nextInt(256)));
        COLUMNS.put("c_int INT", r -> pick(r, "-2147483648", "2147483647", "0", String.valueOf(r.nextInt())));
        COLUMNS.put("c_bigint BIGINT", r -> pick(r, "-9223372036854775808", "9223372036854775807",
                String.valueOf(r.nextLong())));
        COLUMNS.put("c_decimal DECIMAL(30,10)", r -> decimal(r, 60, r.nextInt(11)));
        COLUMNS.put("c_money MONEY", r -> decimal(r, 40, r.nextInt(5)));
        COLUMNS.put("c_date DATE", r -> "'" + date(r) + "'");
        COLUMNS.put("c_dt2 DATETIME2(7)", r -> "'" + date(r) + "T" + time(r, 7) + "'");
        COLUMNS.put("c_datetime DATETIME", r -> "'" + (1753 + r.nextInt(8000)) + "-01-0" + (1 + r.nextInt(9)) + "T"
                + time(r, 3) + "'");
        COLUMNS.put("c_smalldt SMALLDATETIME", r -> "'" + (1900 + r.nextInt(170)) + "-06-1" + r.nextInt(10) + "T"
                + time(r, 0).substring(0, 5) + "'");
        COLUMNS.put("c_time TIME(7)", r -> "'" + time(r, 7) + "'");
        COLUMNS.put("c_uuid UNIQUEIDENTIFIER", r -> "'" + uuid(r) + "'");
    }

    @Test
    void keyOrderAgreesWithTheServersOrderBy(SqlServerDatabase db) throws SQLException {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        List<String> names = new ArrayList<>();
        StringBuilder create = new StringBuilder("CREATE TABLE ordered (id INT PRIMARY KEY");
        for (String column : COLUMNS.keySet()) {
            create.append(", ").append(column).append(" NULL");
            names.add(column.substring(0, column.indexOf(' ')));
        }
        List<String> statements = new ArrayList<>(List.of(create.append(')').toString()));
        List<List<String>> written = new ArrayList<>();
        for (int id = 0; id < ROWS; id++) {
            List<String> literals = new ArrayList<>();
            for (Function<Random, String> draw : COLUMNS.values()) {
                int tie = id > 0 && random.nextInt(8) == 0 ? random.nextInt(id) : -1; // a tie with an earlier row
                literals.add(tie >= 0 ? written.get(tie).get(literals.size())
                        : random.nextInt(12) == 0 ? "NULL" : draw.apply(random));
            }
            written.add(literals);
            statements.add("INSERT INTO ordered VALUES (" + id + ", " + String.join(", ", literals) + ")");
        }
        db.execute(statements.toArray(new String[0]));

        SqlServerConnector connector = SqlServerConnector.create(db.config().build());
        Map<String, Map<Integer, Object>> decoded = new HashMap<>();
        TableDescription description;
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> session = connector.openSession()) {
            description = session.describe(TableId.of(db.name(), "dbo", "ordered"));
            session.readChunk(description, List.of("id"), null, null, e -> names.forEach(n -> decoded
                    .computeIfAbsent(n, k -> new HashMap<>()).put(((Long) e.after().get("id")).intValue(),
                            e.after().get(n))));
        }
        Map<String, Map<Integer, Long>> ranks = ranks(db, names);
        RowType rowType = description.rowType();
        int pairs = 0;
        for (String n : names) {
            pairs += KeyOrderOracle.check(connector.keyOrder(), n, rowType.type(rowType.indexOf(n)), decoded.get(n),
                    ranks.get(n), seed);
        }
        assertThat(pairs).isEqualTo(names.size() * ROWS * ROWS);
    }

    /** Tables keyed by (int, uniqueidentifier) and by datetime2 read in chunks of 7: every row in its chunk. */
    @Test
    void compositeAndTemporalKeysAreReadInExactChunks(SqlServerDatabase db) {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        db.execute("CREATE TABLE chunk_uuid (a INT NOT NULL, u UNIQUEIDENTIFIER NOT NULL, PRIMARY KEY (a, u))",
                "CREATE TABLE chunk_dt2 (t DATETIME2(7) NOT NULL PRIMARY KEY)");
        List<String> statements = new ArrayList<>();
        for (int i = 0; i < 200; i++) { // a value drawn twice is inserted once
            String a = String.valueOf(random.nextInt(4));
            String u = "'" + uuid(random) + "'";
            String t = "'2026-01-01T" + time(random, 7) + "'";
            statements.add("IF NOT EXISTS (SELECT 1 FROM chunk_uuid WHERE a = " + a + " AND u = " + u + ") "
                    + "INSERT INTO chunk_uuid VALUES (" + a + ", " + u + ")");
            statements.add("IF NOT EXISTS (SELECT 1 FROM chunk_dt2 WHERE t = " + t + ") INSERT INTO chunk_dt2 VALUES ("
                    + t + ")");
        }
        db.execute(statements.toArray(new String[0]));
        SqlServerConnector connector = SqlServerConnector.create(db.config().build());
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> session = connector.openSession()) {
            for (String name : List.of("chunk_uuid", "chunk_dt2")) {
                TableDescription d = session.describe(TableId.of(db.name(), "dbo", name));
                ChunkKey key = ChunkKey.of(d, connector.keyOrder(), null, "chunk-key");
                int expected = Integer.parseInt(db.queryValue("SELECT COUNT(*) FROM " + name));
                assertThat(ChunkedReads.countInChunks(session, d, key, 7)).as("seed %d: %s", seed, name)
                        .isEqualTo(expected);
            }
        }
    }

    /** Each row's dense rank in the server's ORDER BY of each column, by column and row id, in one query. */
    private static Map<String, Map<Integer, Long>> ranks(SqlServerDatabase db, List<String> columns)
            throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT id");
        columns.forEach(c -> sql.append(", DENSE_RANK() OVER (ORDER BY ").append(c).append(")"));
        Map<String, Map<Integer, Long>> ranks = new HashMap<>();
        try (Connection c = db.admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql.append(" FROM ordered").toString())) {
            while (rs.next()) {
                for (int i = 0; i < columns.size(); i++) {
                    ranks.computeIfAbsent(columns.get(i), k -> new HashMap<>()).put(rs.getInt(1), rs.getLong(i + 2));
                }
            }
        }
        return ranks;
    }

    private static String pick(Random r, String... options) {
        return options[r.nextInt(options.length)];
    }

    /** A signed decimal of up to {@code bits} bits of digits at {@code scale}, small ones and zero common. */
    private static String decimal(Random r, int bits, int scale) {
        BigInteger unscaled = new BigInteger(r.nextInt(4) == 0 ? r.nextInt(8) : bits, r);
        return new BigDecimal(r.nextBoolean() ? unscaled : unscaled.negate(), scale).toPlainString();
    }

    private static String date(Random r) {
        return String.format("%04d-%02d-%02d", 1 + r.nextInt(9999), 1 + r.nextInt(12), 1 + r.nextInt(28));
    }

    /** A time of day with {@code digits} fractional digits; few distinct values, so that ties are common. */
    private static String time(Random r, int digits) {
        String t = String.format("%02d:%02d:%02d", r.nextInt(24), r.nextInt(3), r.nextInt(60));
        if (digits == 0) {
            return t;
        }
        StringBuilder f = new StringBuilder(".");
        for (int i = 0; i < digits; i++) {
            f.append(r.nextInt(3) == 0 ? 0 : r.nextInt(10));
        }
        return t + f;
    }

    /** A uuid from few distinct bytes, so that groups are often equal and the order turns on later ones. */
    private static String uuid(Random r) {
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            hex.append(pick(r, "00", "01", "7f", "80", "ff", "a5"));
        }
        String h = hex.toString();
        return h.substring(0, 8) + "-" + h.substring(8, 12) + "-" + h.substring(12, 16) + "-" + h.substring(16, 20)
                + "-" + h.substring(20);
    }
}
