package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.types.CatalogTypes;
import io.rustcdc.flink.mysql.types.MySqlCharsets;
import io.rustcdc.flink.mysql.types.MySqlColumn;
import io.rustcdc.flink.source.CdcException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every character set the stream decodes in Java agrees with the server, which converts the
 * snapshot's text: each byte of a single-byte set, and each two-byte sequence of a multi-byte one,
 * decodes to the server's character, or fails where the server has none for it ('?').
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlCharsetsITCase {

    @Test
    void javaDecodingAgreesWithTheServersConversion(MySqlDatabase db) throws Exception {
        assertThat(disagreements(db, new ArrayList<>(MySqlCharsets.supported()))).isEmpty();
    }

    /**
     * Oracle MySQL's gb18030 is GB18030-2005, which differs from the JVM's GB18030 (2022 since JDK
     * 17.0.9) in 36 sequences: the server's characters, for every two-byte and BMP four-byte sequence.
     */
    @Test
    void gb18030DecodingAgreesWithOracleMySql(MySqlDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(db.server().isMariaDb(), "MariaDB has no gb18030");
        try (Connection c = db.admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.CHARACTER_SETS "
                        + "WHERE CHARACTER_SET_NAME = 'gb18030'")) {
            rs.next();
            assertThat(rs.getInt(1)).as("Oracle MySQL has gb18030").isEqualTo(1);
        }
        assertThat(disagreements(db, List.of("gb18030"))).isEmpty();
    }

    /** Per character set of {@code charsets} the server has, the sequences where Java and the server differ. */
    private static Map<String, List<String>> disagreements(MySqlDatabase db, List<String> charsets) throws Exception {
        Map<String, List<String>> disagreements = new TreeMap<>();
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            Map<String, Integer> maxLength = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT CHARACTER_SET_NAME, MAXLEN FROM information_schema.CHARACTER_SETS")) {
                while (rs.next()) {
                    maxLength.put(rs.getString(1), rs.getInt(2));
                }
            }
            for (String charset : charsets) {
                Integer width = maxLength.get(charset);
                if (width == null || charset.startsWith("utf") || charset.equals("ucs2")) {
                    continue; // not on this server; or a Unicode encoding, exact by definition
                }
                MySqlColumn column = CatalogTypes.column("t", "c", "varchar(2)", charset);
                List<byte[]> sequences = new ArrayList<>();
                if (width == 1) {
                    for (int b = 0; b < 256; b++) {
                        sequences.add(new byte[] {(byte) b});
                    }
                } else {
                    for (int lead = 0x81; lead <= 0xfe; lead++) {
                        for (int trail = 0x40; trail <= 0xfe; trail++) {
                            sequences.add(new byte[] {(byte) lead, (byte) trail});
                        }
                    }
                }
                if (width == 4) { // gb18030's four-byte sequences of the Basic Multilingual Plane
                    for (int b1 = 0x81; b1 <= 0x84; b1++) {
                        for (int b2 = 0x30; b2 <= 0x39; b2++) {
                            for (int b3 = 0x81; b3 <= 0xfe; b3++) {
                                for (int b4 = 0x30; b4 <= 0x39; b4++) {
                                    sequences.add(new byte[] {(byte) b1, (byte) b2, (byte) b3, (byte) b4});
                                }
                            }
                        }
                    }
                }
                List<String> server = convert(s, charset, sequences);
                for (int i = 0; i < sequences.size(); i++) {
                    String ours;
                    try {
                        ours = HexFormat.of().withUpperCase().formatHex(
                                MySqlCharsets.decode(column, sequences.get(i)).getBytes(StandardCharsets.UTF_8));
                    } catch (CdcException undefined) {
                        ours = null;
                    }
                    String theirs = server.get(i);
                    // MariaDB converts a sequence it has no character for to '?' (or U+FFFD); Oracle MySQL
                    // returns NULL (warning 1300, invalid character string) for one that is no character
                    boolean serverHasNone = theirs == null || theirs.contains("EFBFBD") || containsQuestionMark(theirs)
                            && !containsQuestionMark(HexFormat.of().withUpperCase().formatHex(sequences.get(i)));
                    boolean agree = ours == null ? serverHasNone : ours.equals(theirs);
                    if (!agree) {
                        disagreements.computeIfAbsent(charset, k -> new ArrayList<>()).add(
                                HexFormat.of().formatHex(sequences.get(i)) + ": server " + theirs + ", ours " + ours);
                    }
                }
            }
        }
        return disagreements;
    }

    @Test
    void aByteTheCharacterSetDoesNotDefineFailsOnBothPathsInsteadOfBecomingAQuestionMark(MySqlDatabase db)
            throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        db.execute("CREATE TABLE undefined_byte (id INT PRIMARY KEY, v VARCHAR(10) CHARACTER SET cp1250, "
                + "w VARCHAR(10) CHARACTER SET latin2)");
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        io.rustcdc.flink.source.model.TableId table = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(),
                "undefined_byte");
        MySqlPosition start;
        try (var session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
            db.execute("INSERT INTO undefined_byte VALUES (1, _cp1250 x'41e8', _latin2 x'b1')");
            var description = session.describe(table);
            List<io.rustcdc.flink.source.model.Row> rows = new ArrayList<>();
            session.readChunk(description, List.of("id"), null, null, e -> rows.add(e.after()));
            // read as bytes and decoded as the binlog's are: the same text as the server converts
            assertThat(rows.get(0).get("v")).isEqualTo("A\u010d");
            assertThat(rows.get(0).get("w")).isEqualTo("\u0105");
            db.execute("INSERT INTO undefined_byte VALUES (2, _cp1250 x'4181', 'x')"); // 0x81: no cp1250 character
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> session.readChunk(description, List.of("id"),
                            null, null, e -> { }))
                    .isInstanceOf(CdcException.class).hasMessageContaining(db.name() + ".undefined_byte.v (varchar(10))")
                    .hasMessageContaining("not valid windows-1250");
        }
        try (var stream = connector.openStream(start, io.rustcdc.flink.source.filter.TableFilter.all())) {
            assertThat(io.rustcdc.flink.testing.StreamTestSupport.events(stream, 1).get(0).after().get("v"))
                    .isEqualTo("A\u010d");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> io.rustcdc.flink.testing.StreamTestSupport.events(stream, 1))
                    .isInstanceOf(CdcException.class).hasMessageContaining("not valid windows-1250");
        }
    }

    @Test
    void enumAndSetLabelsAreTextInTheirColumnsCharacterSetOnBothPaths(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        db.execute("CREATE TABLE labels (id INT PRIMARY KEY, "
                + "u ENUM('caf\u00e9', '\uD83C\uDF89') CHARACTER SET utf8mb4, "
                + "l ENUM('caf\u00e9', '\u00fcber') CHARACTER SET latin1, "
                + "c ENUM('\u0434\u0430', '\u043d\u0435\u0442') CHARACTER SET cp1251, "
                + "s SET('\u00e4', '\u00f6', 'x') CHARACTER SET latin1)");
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        io.rustcdc.flink.source.model.TableId table = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(),
                "labels");
        MySqlPosition start;
        List<io.rustcdc.flink.source.model.Row> snapshot = new ArrayList<>();
        try (var session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
            db.execute("INSERT INTO labels VALUES (1, '\uD83C\uDF89', '\u00fcber', '\u043d\u0435\u0442', '\u00e4,\u00f6')");
            session.readChunk(session.describe(table), List.of("id"), null, null, e -> snapshot.add(e.after()));
        }
        List<Object> expected = List.of(1L, "\uD83C\uDF89", "\u00fcber", "\u043d\u0435\u0442", "\u00e4,\u00f6");
        assertThat(List.of(snapshot.get(0).get("id"), snapshot.get(0).get("u"), snapshot.get(0).get("l"),
                snapshot.get(0).get("c"), snapshot.get(0).get("s"))).isEqualTo(expected);
        try (var stream = connector.openStream(start, io.rustcdc.flink.source.filter.TableFilter.all())) {
            io.rustcdc.flink.source.model.Row row = io.rustcdc.flink.testing.StreamTestSupport.events(stream, 1).get(0).after();
            assertThat(row).isEqualTo(snapshot.get(0));
        }
    }

    /** Whether hex-encoded bytes hold '?' (3F) at a byte boundary. */
    private static boolean containsQuestionMark(String hex) {
        for (int i = 0; i + 1 < hex.length(); i += 2) {
            if (hex.charAt(i) == '3' && hex.charAt(i + 1) == 'F') {
                return true;
            }
        }
        return false;
    }

    /** The server's conversion of each sequence to utf8mb4, as hex, 200 per query. */
    private static List<String> convert(Statement s, String charset, List<byte[]> sequences) throws Exception {
        List<String> out = new ArrayList<>();
        for (int from = 0; from < sequences.size(); from += 200) {
            StringBuilder sql = new StringBuilder("SELECT ");
            int to = Math.min(sequences.size(), from + 200);
            for (int i = from; i < to; i++) {
                // bytes to the character set is a reinterpretation: an invalid sequence becomes '?', not an error
                sql.append(i == from ? "" : ", ").append("HEX(CONVERT(CONVERT(x'")
                        .append(HexFormat.of().formatHex(sequences.get(i))).append("' USING ").append(charset)
                        .append(") USING utf8mb4))");
            }
            try (ResultSet rs = s.executeQuery(sql.toString())) {
                rs.next();
                for (int i = 1; i <= to - from; i++) {
                    out.add(rs.getString(i));
                }
            }
        }
        return out;
    }
}
