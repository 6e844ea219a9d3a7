package io.rustcdc.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.history.SchemaChange;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.EmittedShapes;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

public class CdcSplitSerializerTest {
    static final CdcSplitSerializer<TestPosition, Long> SERIALIZER =
            new CdcSplitSerializer<>(TestPosition.POSITIONS, TestPosition.MARKS, TestKeyOrder.ASCENDING);
    static final TableId ORDERS = TableId.of("shop", "public", "orders");

    /** Samples whose version-1 bytes are kept in test resources; never change them. */
    public static ChunkKey key() {
        return ChunkKey.restored(List.of("id", "amount", "uid", "day", "at", "raw"), List.of(ValueType.of(ValueKind.BIGINT),
                ValueType.of(ValueKind.DECIMAL), ValueType.of(ValueKind.UUID), ValueType.of(ValueKind.DATE),
                ValueType.temporal(ValueKind.TIMESTAMP, 3), ValueType.of(ValueKind.BYTES)), TestKeyOrder.ASCENDING);
    }

    static ChunkSplit<Long> chunk() {
        Object[] after = {-5L, new BigDecimal("12.5000"), UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
                LocalDate.of(-43, 3, 15), LocalDateTime.of(2024, 3, 30, 23, 30, 0, 123_000_000), new byte[] {0, (byte) 0xff}};
        Object[] upTo = {7L, SpecialValue.NAN, UUID.fromString("00000000-0000-0000-0000-000000000001"),
                SpecialValue.POSITIVE_INFINITY, SpecialValue.NEGATIVE_INFINITY, new byte[0]};
        return ChunkSplit.<Long>of(ORDERS, key(), 3, after, upTo).finished(99L);
    }

    static StreamSplit<TestPosition, Long> stream() {
        SchemaHistory history = new SchemaHistory();
        history.recordDdl("shape:public.orders:start", SchemaChange.rowShape(ORDERS,
                RowShape.of("public", "orders", List.of(RowShape.Column.of("id", "bigint", false)), List.of("id")),
                Instant.parse("2024-03-30T23:30:00Z")));
        ChunkSplit<Long> first = ChunkSplit.<Long>of(ORDERS, key(), 0, null, null).finished(1L);
        return StreamSplit.of(new TestPosition(12345), List.of(first, chunk()), Set.of(ORDERS), history);
    }

    @Test
    void chunksRoundTripWithEveryKeyKind() throws IOException {
        ChunkSplit<Long> unread = ChunkSplit.of(ORDERS, key(), 0, null, null);
        assertThat(roundTrip(unread)).isEqualTo(unread);
        assertThat(roundTrip(chunk())).isEqualTo(chunk());
        assertThat(((ChunkSplit<?>) roundTrip(chunk())).mark()).isEqualTo(99L);
    }

    @Test
    void streamRoundTrips() throws IOException {
        assertThat(roundTrip(stream())).isEqualTo(stream());
    }

    /** A stream split that is also adding a table (version 2 and later). */
    static StreamSplit<TestPosition, Long> streamAdding() {
        StreamSplit<TestPosition, Long> base = stream();
        TablePlan plan = new TablePlan(TableId.of("shop", "public", "added"), key(), 3, chunk().upTo());
        return StreamSplit.of(base.position(), base.handoff(), base.tables(), base.history(), List.of(plan));
    }

    @Test
    void readsBytesWrittenByVersion1() throws IOException {
        assertThat(SERIALIZER.deserialize(1, resource("/serializer-snapshots/chunk-split-v1.bin"))).isEqualTo(chunk());
        StreamSplit<?, ?> v1 = (StreamSplit<?, ?>) SERIALIZER.deserialize(1,
                resource("/serializer-snapshots/stream-split-v1.bin"));
        assertThat(v1).isEqualTo(stream());
        assertThat(v1.adding()).isEmpty();
    }

    @Test
    void readsBytesWrittenByVersion2() throws IOException {
        assertThat(SERIALIZER.deserialize(2, resource("/serializer-snapshots/stream-split-v2.bin"))).isEqualTo(streamAdding());
        assertThat(roundTrip(streamAdding())).isEqualTo(streamAdding());
    }

    /** A stream split adding a table whose handoff holds a redelivered chunk (version 3 and later). */
    static StreamSplit<TestPosition, Long> streamRedelivered() {
        StreamSplit<TestPosition, Long> base = streamAdding();
        List<ChunkSplit<Long>> handoff = List.of(base.handoff().get(0), chunk().redelivered());
        return StreamSplit.of(base.position(), handoff, base.tables(), base.history(), base.adding());
    }

    @Test
    void readsBytesWrittenByVersion3() throws IOException {
        StreamSplit<?, ?> v3 = (StreamSplit<?, ?>) SERIALIZER.deserialize(3,
                resource("/serializer-snapshots/stream-split-v3.bin"));
        assertThat(v3).isEqualTo(streamRedelivered());
        assertThat(v3.handoff().get(1).isRedelivered()).isTrue();
        assertThat(v3.handoff().get(0).isRedelivered()).isFalse();
        assertThat(roundTrip(chunk().redelivered())).isEqualTo(chunk().redelivered()).isNotEqualTo(chunk());
        assertThat(((ChunkSplit<?>) roundTrip(ChunkSplit.of(ORDERS, key(), 0, null, null).redelivered())).isRedelivered())
                .isTrue();
    }

    /**
     * A stream split whose handoff holds a chunk bounded by MySQL zero dates and the one chunk of a table
     * with a nullable key (version 4 and later).
     */
    static StreamSplit<TestPosition, Long> streamWithZeroDates() {
        StreamSplit<TestPosition, Long> base = streamRedelivered();
        Object[] after = {8L, new BigDecimal("-0.001"), UUID.fromString("ffffffff-ffff-ffff-ffff-ffffffffffff"),
                SpecialValue.zeroDate("2024-00-00"), SpecialValue.zeroDate("2024-02-30 10:11:12.000500"), null};
        ChunkSplit<Long> zeroDates = ChunkSplit.<Long>of(ORDERS, key(), 4, after, null).finished(100L);
        ChunkKey nullable = ChunkKey.restored(key().columns(), key().types(), TestKeyOrder.ASCENDING, true);
        ChunkSplit<Long> oneChunk = ChunkSplit.<Long>of(ORDERS, nullable, 0, null, null).finished(101L);
        List<ChunkSplit<Long>> handoff = List.of(base.handoff().get(0), base.handoff().get(1), zeroDates, oneChunk);
        return StreamSplit.of(base.position(), handoff, base.tables(), base.history(), base.adding());
    }

    @Test
    void version4WritesExplicitCodesAndZeroDates() throws IOException {
        byte[] frozen = resource("/serializer-snapshots/stream-split-v4.bin");
        assertThat(SERIALIZER.deserialize(4, frozen)).isEqualTo(streamWithZeroDates());
        assertThat(roundTrip(streamWithZeroDates())).isEqualTo(streamWithZeroDates());
        ChunkKey nullable = ChunkKey.restored(key().columns(), key().types(), TestKeyOrder.ASCENDING, true);
        ChunkSplit<Long> oneChunk = ChunkSplit.of(ORDERS, nullable, 0, null, null);
        assertThat(((ChunkSplit<?>) roundTrip(oneChunk)).key().splittable()).as("nullable: kept in one chunk").isFalse();
        assertThat(roundTrip(oneChunk)).isEqualTo(oneChunk);
        // the nested format is 2 (after the split's type byte), and the first key column's kind (BIGINT) is code 3
        byte[] chunk = SERIALIZER.serialize(ChunkSplit.of(ORDERS, key(), 0, null, null));
        assertThat(chunk[4]).isEqualTo((byte) 2);
        int firstKind = 1 + 4 + (4 + 4) + (1 + 4 + 6) + (4 + 6) + 4 + (4 + 2);
        assertThat(chunk[firstKind]).isEqualTo((byte) 3);
        chunk[firstKind] = 0;
        assertThatThrownBy(() -> SERIALIZER.deserialize(4, chunk)).hasMessageContaining("Unknown value kind code 0");
    }

    /** Version 4's sample plus a text-keyed chunk whose collation is kept (version 5 and later). */
    static StreamSplit<TestPosition, Long> streamWithCollations() {
        StreamSplit<TestPosition, Long> base = streamWithZeroDates();
        ChunkKey text = ChunkKey.restored(List.of("code", "id"), List.of(ValueType.of(ValueKind.TEXT),
                ValueType.of(ValueKind.BIGINT)), java.util.Arrays.asList(TestKeyOrder.CASE_INSENSITIVE, null),
                TestKeyOrder.ASCENDING, false);
        ChunkSplit<Long> textChunk = ChunkSplit.<Long>of(ORDERS, text, 5, new Object[] {"Ab c ", 3L},
                new Object[] {"\u00e9\ud83d\ude00", -1L}).finished(102L);
        List<ChunkSplit<Long>> handoff = new java.util.ArrayList<>(base.handoff());
        handoff.add(textChunk);
        TablePlan plan = new TablePlan(TableId.of("shop", "public", "texts"), text, 2, new Object[] {"", 0L});
        List<TablePlan> adding = new java.util.ArrayList<>(base.adding());
        adding.add(plan);
        return StreamSplit.of(base.position(), handoff, base.tables(), base.history(), adding);
    }

    @Test
    void version5KeepsCollations() throws IOException {
        byte[] frozen = resource("/serializer-snapshots/stream-split-v5.bin");
        assertThat(SERIALIZER.deserialize(5, frozen)).isEqualTo(streamWithCollations());
        StreamSplit<?, ?> read = (StreamSplit<?, ?>) roundTrip(streamWithCollations());
        ChunkKey key = read.handoff().get(read.handoff().size() - 1).key();
        assertThat(key.collations()).containsExactly(TestKeyOrder.CASE_INSENSITIVE, null);
        assertThat(key.splittable()).as("the test order orders text of its collation").isTrue();
        assertThat(read.adding().get(read.adding().size() - 1).key()).isEqualTo(key);
        // a key read from version 4 has no collation, so its text is not ordered
        StreamSplit<?, ?> v4 = (StreamSplit<?, ?>) SERIALIZER.deserialize(4,
                resource("/serializer-snapshots/stream-split-v4.bin"));
        assertThat(v4.handoff().get(0).key().collations()).containsOnlyNulls();
    }

    /** Version 5's sample plus what the stream's events said of two tables' shapes (version 6 and later). */
    static StreamSplit<TestPosition, Long> streamWithShapes() {
        StreamSplit<TestPosition, Long> base = streamWithCollations();
        RowShape left = RowShape.of("public", "orders", List.of(RowShape.Column.of("id", "bigint", false),
                RowShape.Column.of("note", "text", true)), List.of("id"));
        RowShape rows = RowShape.of("public", "orders", List.of(RowShape.Column.of("id", "bigint", false)), List.of("id"));
        EmittedShapes shapes = new EmittedShapes();
        shapes.restore(ORDERS, left, rows);
        shapes.restore(TableId.of("shop", "public", "texts"), null,
                RowShape.of("public", "texts", List.of(RowShape.Column.of("code", "text", false)), List.of()));
        return StreamSplit.of(base.position(), base.handoff(), base.tables(), base.history(), base.adding(), shapes);
    }

    @Test
    void version6KeepsTheShapesTheStreamEmitted() throws IOException {
        byte[] frozen = resource("/serializer-snapshots/stream-split-v6.bin");
        StreamSplit<?, ?> read = (StreamSplit<?, ?>) SERIALIZER.deserialize(6, frozen);
        assertThat(read).isEqualTo(streamWithShapes());
        assertThat(read.shapes().leftByChange(ORDERS)).isEqualTo(streamWithShapes().shapes().leftByChange(ORDERS));
        assertThat(read.shapes().rows(TableId.of("shop", "public", "texts")).table()).isEqualTo("texts");
        assertThat(read.shapes().leftByChange(TableId.of("shop", "public", "texts"))).isNull();
        assertThat(roundTrip(streamWithShapes())).isEqualTo(streamWithShapes());
        // older versions held none: a stream restored from them starts knowing no shape, as before
        assertThat(((StreamSplit<?, ?>) SERIALIZER.deserialize(5, resource("/serializer-snapshots/stream-split-v5.bin")))
                .shapes().tables()).isEmpty();
        assertThat(streamWithShapes()).isNotEqualTo(streamWithCollations());
    }

    /** Version 6's sample inside a transaction whose begin marker was emitted (version 7 and later). */
    static StreamSplit<TestPosition, Long> streamInATransaction() {
        return streamWithShapes().withOpenTransaction(new OpenTransaction("tx-\u00e9 7", "test",
                Instant.ofEpochSecond(1_700_000_000L, 123_456_789),
                Map.of(ORDERS, 3L, TableId.of("shop", "public", "texts"), 1L)));
    }

    @Test
    void version7KeepsTheOpenTransaction() throws IOException {
        byte[] frozen = resource("/serializer-snapshots/stream-split-v7.bin");
        StreamSplit<?, ?> read = (StreamSplit<?, ?>) SERIALIZER.deserialize(7, frozen);
        assertThat(read).isEqualTo(streamInATransaction());
        assertThat(read.openTransaction()).isEqualTo(streamInATransaction().openTransaction());
        assertThat(roundTrip(streamInATransaction())).isEqualTo(streamInATransaction());
        StreamSplit<TestPosition, Long> noTime = streamWithShapes().withOpenTransaction(
                new OpenTransaction("1", "test", null, Map.of(ORDERS, 1L)));
        assertThat(roundTrip(noTime)).isEqualTo(noTime);
        assertThat(roundTrip(streamWithShapes())).isEqualTo(streamWithShapes());
        // older versions held none: a stream restored from them knows of no begun transaction
        assertThat(((StreamSplit<?, ?>) SERIALIZER.deserialize(6, resource("/serializer-snapshots/stream-split-v6.bin")))
                .openTransaction()).isNull();
        assertThat(streamInATransaction()).isNotEqualTo(streamWithShapes());
    }

    /** Version 7's sample plus a row filter on a chunk of the handoff and on a plan (version 8 and later). */
    static StreamSplit<TestPosition, Long> streamWithRowFilters() {
        StreamSplit<TestPosition, Long> base = streamInATransaction();
        List<ChunkSplit<Long>> handoff = new java.util.ArrayList<>(base.handoff());
        ChunkSplit<Long> last = handoff.remove(handoff.size() - 1);
        handoff.add(ChunkSplit.<Long>of(last.table(), last.key(), last.index(), last.after(), last.upTo(),
                "region = 'EU' AND note <> '\u00e9\t'").finished(last.mark()));
        List<TablePlan> adding = new java.util.ArrayList<>(base.adding());
        TablePlan plan = adding.remove(adding.size() - 1);
        adding.add(new TablePlan(plan.table(), plan.key(), plan.nextIndex(), plan.nextAfter(), "code LIKE 'a%'"));
        return StreamSplit.of(base.position(), handoff, base.tables(), base.history(), adding, base.shapes())
                .withOpenTransaction(base.openTransaction());
    }

    @Test
    void version8KeepsRowFilters() throws IOException {
        assertThat(SERIALIZER.getVersion()).isEqualTo(8);
        StreamSplit<?, ?> read = (StreamSplit<?, ?>) SERIALIZER.deserialize(8,
                resource("/serializer-snapshots/stream-split-v8.bin"));
        assertThat(read).isEqualTo(streamWithRowFilters());
        assertThat(read.handoff().get(read.handoff().size() - 1).rowFilter()).isEqualTo("region = 'EU' AND note <> '\u00e9\t'");
        assertThat(read.adding().get(read.adding().size() - 1).rowFilter()).isEqualTo("code LIKE 'a%'");
        assertThat(read.adding().get(read.adding().size() - 1).chunk(null).rowFilter()).isEqualTo("code LIKE 'a%'");
        assertThat(roundTrip(streamWithRowFilters())).isEqualTo(streamWithRowFilters());
        assertThat(streamWithRowFilters()).isNotEqualTo(streamInATransaction());
        // older versions held none: every row, as they were read
        StreamSplit<?, ?> v7 = (StreamSplit<?, ?>) SERIALIZER.deserialize(7,
                resource("/serializer-snapshots/stream-split-v7.bin"));
        assertThat(v7.handoff()).allSatisfy(c -> assertThat(c.rowFilter()).isNull());
        assertThat(v7.adding()).allSatisfy(p -> assertThat(p.rowFilter()).isNull());
        ChunkSplit<Long> chunk = ChunkSplit.<Long>of(ORDERS, streamWithShapes().handoff().get(0).key(), 3, null, null,
                "x > 1");
        assertThat(roundTrip(chunk)).isEqualTo(chunk);
        assertThat(roundTrip(chunk.finished(7L).redelivered())).isEqualTo(chunk.finished(7L).redelivered());
    }

    @Test
    void refusesUnknownVersions() {
        assertThatThrownBy(() -> SERIALIZER.deserialize(9, new byte[0])).isInstanceOf(CdcException.class)
                .hasMessageContaining("serializer version 9");
    }

    private static CdcSplit roundTrip(CdcSplit split) throws IOException {
        return SERIALIZER.deserialize(SERIALIZER.getVersion(), SERIALIZER.serialize(split));
    }

    static byte[] resource(String name) throws IOException {
        try (InputStream in = CdcSplitSerializerTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    /** Writes the snapshot of the current version; run once when a format version is introduced. */
    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.write(dir.resolve("stream-split-v" + SERIALIZER.getVersion() + ".bin"),
                SERIALIZER.serialize(streamWithRowFilters()));
    }
}
