package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.source.CdcSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A table {@code wb} (text key {@code k}, int {@code v}) whose chunk key changes while it waits behind another
 * table's ({@code wa}, three rows) snapshot: the job, at parallelism 1 with {@link ReadGate} as its deserializer,
 * is held at {@code wa}'s first row, so that no chunk of {@code wb} is planned; {@code wb} is changed, its key
 * altered, changed again, and the job let go. The changelog must end equal to the table.
 */
public final class KeyChangedWhileWaiting {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private KeyChangedWhileWaiting() {}

    /**
     * {@code wb}'s rows as an INSERT's values: one key per letter, lower and upper case in turn, which a case-sensitive
     * binary collation sorts otherwise (upper case first) than a linguistic one.
     */
    public static String rows() {
        List<String> rows = new ArrayList<>();
        for (char c = 'a'; c <= 'z'; c++) {
            rows.add("('" + (c % 2 == 0 ? String.valueOf(c) : String.valueOf(Character.toUpperCase(c))) + "', 1)");
        }
        return String.join(", ", rows);
    }

    /**
     * Runs the job of {@code source} (both tables, {@link ReadGate}) with {@code alter} changing {@code wb}'s key while
     * it waits, and checks the changelog ends equal to both tables.
     */
    public static void run(SqlDatabase db, CdcSource<String, ?, ?> source, String alter) throws Exception {
        ReadGate.reset();
        ReadGate.holdAt = 1; // wa's first row: the reader asks for no chunk of wb until it is let go
        try (SourceJob job = new SourceJob(source, 1)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (ReadGate.READS.get() < 1) {
                assertThat(System.nanoTime()).as("wa's first row held within a minute").isLessThan(deadline);
                Thread.sleep(20);
            }
            db.execute("UPDATE wb SET v = 2 WHERE k IN ('b', 'C', 'x')", "DELETE FROM wb WHERE k = 'd'", alter,
                    "UPDATE wb SET v = 3 WHERE k IN ('a', 'y', 'C')", "DELETE FROM wb WHERE k = 'F'",
                    "INSERT INTO wb VALUES ('aa', 4), ('Zz', 4)");
            ReadGate.holdAt = Long.MAX_VALUE;
            Map<String, String> expected = new HashMap<>();
            try (Connection c = db.admin(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT k, v FROM wb")) {
                while (rs.next()) {
                    expected.put(MAPPER.getNodeFactory().textNode(rs.getString(1)) + "|",
                            MAPPER.createObjectNode().put("k", rs.getString(1)).put("v", rs.getInt(2)).toString());
                }
            }
            JsonChangelog changelog = new JsonChangelog(Map.of("wa", List.of("id"), "wb", List.of("k")));
            job.applyUntil(changelog, () -> changelog.rows("wb").equals(expected) && changelog.rows("wa").size() == 3,
                    Duration.ofSeconds(120));
            assertThat(changelog.violations()).isEmpty();
        } finally {
            ReadGate.reset();
        }
    }
}
