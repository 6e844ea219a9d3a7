package io.rustcdc.flink.mysql.binlog;

import static io.rustcdc.flink.mysql.binlog.BinlogBytes.concat;
import static io.rustcdc.flink.mysql.binlog.BinlogBytes.event;
import static io.rustcdc.flink.mysql.binlog.BinlogBytes.mariaDbCompressed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's compressed query and row events ({@code log_bin_compress}), from bytes written as the
 * server writes them: decoded as the plain events they stand for, exactly; a compressed part that is
 * not what MariaDB writes fails naming the event. The randomized test prints its seed; replay with
 * {@code -Drustcdc.mariadb-compression.seed=<seed>}.
 */
class MariaDbCompressedEventsTest {
    private static final int QUERY_COMPRESSED = 165, WRITE_ROWS_COMPRESSED_V1 = 166, WRITE_ROWS_COMPRESSED = 169;

    @Test
    void randomBytesOfEveryLengthClassComeBackExactly() throws IOException {
        long seed = Long.getLong("rustcdc.mariadb-compression.seed", System.nanoTime());
        System.out.println("MariaDbCompressedEventsTest seed " + seed
                + " (replay with -Drustcdc.mariadb-compression.seed=" + seed + ")");
        Random random = new Random(seed);
        int[] lengths = {0, 1, 255, 256, 65535, 65536, 70000 + random.nextInt(1 << 20), 1 << 24};
        for (int length : lengths) {
            byte[] plain = new byte[length];
            if (random.nextBoolean()) {
                random.nextBytes(plain);
            } else {
                Arrays.fill(plain, (byte) random.nextInt(256)); // compresses far: the output is much longer
            }
            byte[] prefix = new byte[random.nextInt(20)];
            random.nextBytes(prefix);
            assertThat(MariaDbCompressedEvents.decompress(concat(prefix, mariaDbCompressed(plain)), prefix.length))
                    .as("seed %d length %d", seed, length).isEqualTo(plain);
        }
    }

    @Test
    void aCompressedQueryIsTheQuery() throws IOException {
        String sql = "CREATE TABLE caf\u00e9 (id INT PRIMARY KEY, note VARCHAR(200)) -- \uD83C\uDF89 " + "x".repeat(300);
        byte[] data = BinlogBytes.queryData("shop", mariaDbCompressed(sql.getBytes(StandardCharsets.UTF_8)));
        Event e = ExactEventDeserializer.create().nextEvent(new ByteArrayInputStream(event(QUERY_COMPRESSED, 1, 900, data)));
        assertThat(e.getHeader().getEventType()).isEqualTo(EventType.QUERY);
        assertThat(((QueryEventData) e.getData()).getSql()).isEqualTo(sql);
        assertThat(((QueryEventData) e.getData()).getDatabase()).isEqualTo("shop");
    }

    @Test
    void compressedRowsAreTheRowsInBothRowEventVersions() throws IOException {
        List<Integer> ids = Arrays.asList(1, null, -2147483648, 2147483647);
        List<byte[]> names = List.of(bytes("a"), bytes(""), bytes("\u00e9\uD83C\uDF89"), bytes("z".repeat(100)));
        for (boolean v2 : new boolean[] {false, true}) {
            EventDeserializer events = ExactEventDeserializer.create();
            events.nextEvent(new ByteArrayInputStream(event(BinlogBytes.TABLE_MAP, 1, 100, BinlogBytes.tableMapData("shop"))));
            byte[] data = concat(BinlogBytes.rowsHead(v2), mariaDbCompressed(BinlogBytes.rows(ids, names)));
            Event e = events.nextEvent(new ByteArrayInputStream(event(v2 ? WRITE_ROWS_COMPRESSED : WRITE_ROWS_COMPRESSED_V1,
                    1, 700, data)));
            assertThat(e.getHeader().getEventType()).isEqualTo(v2 ? EventType.EXT_WRITE_ROWS : EventType.WRITE_ROWS);
            List<Serializable[]> rows = ((WriteRowsEventData) e.getData()).getRows();
            assertThat(rows).hasSize(ids.size());
            for (int r = 0; r < rows.size(); r++) {
                assertThat(rows.get(r)[0]).isEqualTo(ids.get(r));
                assertThat((byte[]) rows.get(r)[1]).isEqualTo(names.get(r));
            }
        }
    }

    @Test
    void uncompressedEventsAreReadAsBefore() throws IOException {
        EventDeserializer events = ExactEventDeserializer.create();
        Event q = events.nextEvent(new ByteArrayInputStream(event(BinlogBytes.QUERY, 1, 80,
                BinlogBytes.queryData("shop", bytes("BEGIN")))));
        assertThat(((QueryEventData) q.getData()).getSql()).isEqualTo("BEGIN");
        events.nextEvent(new ByteArrayInputStream(event(BinlogBytes.TABLE_MAP, 1, 100, BinlogBytes.tableMapData("shop"))));
        Event w = events.nextEvent(new ByteArrayInputStream(event(BinlogBytes.WRITE_ROWS_V1, 1, 200,
                concat(BinlogBytes.rowsHead(false), BinlogBytes.rows(List.of(5), List.of(bytes("x")))))));
        assertThat(((WriteRowsEventData) w.getData()).getRows().get(0)[0]).isEqualTo(5);
    }

    @Test
    void whatIsNotMariaDbsCompressionFailsNamingTheEvent() {
        byte[] good = mariaDbCompressed(bytes("SELECT 1 FROM dual WHERE 1 = 1"));
        byte[] otherAlgorithm = good.clone();
        otherAlgorithm[0] |= 0x10;
        byte[] notFlagged = good.clone();
        notFlagged[0] &= 0x7f;
        byte[] longer = good.clone();
        longer[1]++;
        byte[] cut = Arrays.copyOf(good, good.length - 3);
        byte[] trailing = concat(good, new byte[] {1, 2});
        List<Object[]> cases = new ArrayList<>();
        cases.add(new Object[] {otherAlgorithm, "compression algorithm 1 is not zlib"});
        cases.add(new Object[] {notFlagged, "not a compression header"});
        cases.add(new Object[] {longer, "where its header says"});
        cases.add(new Object[] {cut, "ends before its end"});
        cases.add(new Object[] {trailing, "bytes left over"});
        for (Object[] c : cases) {
            byte[] data = BinlogBytes.queryData("shop", (byte[]) c[0]);
            byte[] whole = event(QUERY_COMPRESSED, 1, 4000 + 19 + data.length, data);
            assertThatThrownBy(() -> ExactEventDeserializer.create().nextEvent(new ByteArrayInputStream(whole)))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                    .hasMessageContaining("type 165 at offset 4000")
                    .hasMessageContaining("log_bin_compress")
                    .hasMessageContaining((String) c[1]);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
