package io.rustcdc.flink.mysql.binlog;

import static io.rustcdc.flink.mysql.binlog.BinlogBytes.concat;
import static io.rustcdc.flink.mysql.binlog.BinlogBytes.event;
import static io.rustcdc.flink.mysql.binlog.BinlogBytes.packed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.XidEventData;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Oracle MySQL's compressed transactions, decoded from bytes written as the server writes them: the
 * events inside come out as ordinary events with exact cells, each at the payload's place in the
 * binlog, and every way a payload can be unreadable fails naming its position. The randomized test
 * prints its seed; replay with {@code -Drustcdc.payload.seed=<seed>}.
 */
class CompressedTransactionsTest {
    private static final long PAYLOAD_AT = 1234;

    @Test
    void randomRowsInsideAPayloadAreDecodedExactlyAndPlacedAtThePayload() throws IOException {
        long seed = Long.getLong("rustcdc.payload.seed", System.nanoTime());
        System.out.println("CompressedTransactionsTest seed " + seed + " (replay with -Drustcdc.payload.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int round = 0; round < 50; round++) {
            List<List<Integer>> ids = new ArrayList<>();
            List<List<byte[]>> names = new ArrayList<>();
            List<byte[]> inner = new ArrayList<>();
            inner.add(event(BinlogBytes.QUERY, 1700000000L, 0, BinlogBytes.queryData("", bytes("BEGIN"))));
            inner.add(event(BinlogBytes.TABLE_MAP, 1700000000L, 0, BinlogBytes.tableMapData("shop")));
            int rowEvents = 1 + random.nextInt(4);
            for (int e = 0; e < rowEvents; e++) {
                List<Integer> eventIds = new ArrayList<>();
                List<byte[]> eventNames = new ArrayList<>();
                for (int r = 0, n = 1 + random.nextInt(30); r < n; r++) {
                    eventIds.add(random.nextInt(8) == 0 ? null : random.nextInt());
                    byte[] name = new byte[random.nextInt(101)];
                    random.nextBytes(name); // any bytes: the cell reader keeps them as they are
                    eventNames.add(name);
                }
                ids.add(eventIds);
                names.add(eventNames);
                inner.add(event(BinlogBytes.WRITE_ROWS_V2, 1700000000L, 0,
                        concat(BinlogBytes.rowsHead(true), BinlogBytes.rows(eventIds, eventNames))));
            }
            inner.add(event(BinlogBytes.XID, 1700000000L, 0, BinlogBytes.xidData(4242)));
            byte[] plain = concat(inner.toArray(new byte[0][]));
            boolean zstd = random.nextInt(5) != 0;

            List<Event> events = expand(payloadEvent(zstd ? CompressedTransactions.ZSTD : CompressedTransactions.NONE,
                    zstd ? Zstd.compress(plain, 1 + random.nextInt(19)) : plain, plain.length));

            assertThat(events).hasSize(3 + rowEvents);
            assertThat(events).allSatisfy(e -> {
                EventHeaderV4 h = e.getHeader();
                assertThat(h.getPosition()).as("start").isEqualTo(PAYLOAD_AT);
                assertThat(h.getNextPosition()).as("end").isEqualTo(PAYLOAD_AT + h.getEventLength());
                assertThat(h.getTimestamp()).isEqualTo(1700000000L * 1000);
            });
            assertThat(((QueryEventData) events.get(0).getData()).getSql()).isEqualTo("BEGIN");
            assertThat(((TableMapEventData) events.get(1).getData()).getTable()).isEqualTo("t");
            for (int e = 0; e < rowEvents; e++) {
                Event rows = events.get(2 + e);
                assertThat(rows.getHeader().getEventType()).isEqualTo(EventType.EXT_WRITE_ROWS);
                List<Serializable[]> decoded = ((WriteRowsEventData) rows.getData()).getRows();
                assertThat(decoded).hasSameSizeAs(ids.get(e));
                for (int r = 0; r < decoded.size(); r++) {
                    assertThat(decoded.get(r)[0]).as("seed %d round %d row %d", seed, round, r).isEqualTo(ids.get(e).get(r));
                    assertThat((byte[]) decoded.get(r)[1]).as("seed %d round %d row %d", seed, round, r)
                            .isEqualTo(names.get(e).get(r));
                }
            }
            assertThat(((XidEventData) events.get(events.size() - 1).getData()).getXid()).isEqualTo(4242);
        }
    }

    @Test
    void anUnknownCompressionTypeFailsNamingThePayload() throws IOException {
        byte[] plain = event(BinlogBytes.XID, 1, 0, BinlogBytes.xidData(1));
        assertThatThrownBy(() -> expand(payloadEvent(7, plain, plain.length)))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                .hasMessageContaining("Transaction_payload_event")
                .hasMessageContaining("mysql-bin.000042:" + PAYLOAD_AT)
                .hasMessageContaining("compression type 7 is not zstd");
    }

    @Test
    void aPayloadWhoseSizeDisagreesWithItsEventsFails() throws IOException {
        byte[] plain = event(BinlogBytes.XID, 1, 0, BinlogBytes.xidData(1));
        assertThatThrownBy(() -> expand(payloadEvent(CompressedTransactions.ZSTD, Zstd.compress(plain), plain.length + 3)))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                .hasMessageContaining("where the event says " + (plain.length + 3));
    }

    @Test
    void aCorruptZstdFrameFails() throws IOException {
        byte[] plain = event(BinlogBytes.XID, 1, 0, BinlogBytes.xidData(1));
        byte[] compressed = Zstd.compress(plain);
        compressed[compressed.length / 2] ^= 0x5a;
        compressed[0] ^= 0x01; // the frame's magic number
        assertThatThrownBy(() -> expand(payloadEvent(CompressedTransactions.ZSTD, compressed, plain.length)))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                .hasMessageContaining("mysql-bin.000042:" + PAYLOAD_AT);
    }

    @Test
    void aPayloadCutShortIsADeserializationFailure() {
        byte[] plain = event(BinlogBytes.XID, 1, 0, BinlogBytes.xidData(1));
        byte[] compressed = Zstd.compress(plain);
        byte[] data = concat(field(1, compressed.length + 5), field(2, 0), field(3, plain.length), packed(0), compressed);
        byte[] whole = event(BinlogBytes.PAYLOAD, 1, PAYLOAD_AT + 19 + data.length, data);
        assertThatThrownBy(() -> ExactEventDeserializer.create().nextEvent(new ByteArrayInputStream(whole)))
                .hasStackTraceContaining("payload size " + (compressed.length + 5));
    }

    @Test
    void anEventThatIsNoPayloadGoesOnAsItIs() throws IOException {
        byte[] xid = event(BinlogBytes.XID, 1, 500, BinlogBytes.xidData(9));
        Event event = ExactEventDeserializer.create().nextEvent(new ByteArrayInputStream(xid));
        List<Event> out = new ArrayList<>();
        CompressedTransactions.expand(event, "mysql-bin.000042", out::add);
        assertThat(out).containsExactly(event);
    }

    /** The payload event at {@link #PAYLOAD_AT}, fields in the server's order, then the payload. */
    private static byte[] payloadEvent(int compression, byte[] payload, long uncompressedSize) {
        byte[] data = concat(field(1, payload.length), field(2, compression), field(3, uncompressedSize), packed(0),
                payload);
        return event(BinlogBytes.PAYLOAD, 1700000000L, PAYLOAD_AT + 19 + data.length, data);
    }

    private static byte[] field(int type, long value) {
        byte[] v = packed(value);
        return concat(packed(type), packed(v.length), v);
    }

    private static List<Event> expand(byte[] payloadEvent) throws IOException {
        Event event = ExactEventDeserializer.create().nextEvent(new ByteArrayInputStream(payloadEvent));
        assertThat(event.getHeader().getEventType()).isEqualTo(EventType.TRANSACTION_PAYLOAD);
        List<Event> out = new ArrayList<>();
        CompressedTransactions.expand(event, "mysql-bin.000042", out::add);
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
