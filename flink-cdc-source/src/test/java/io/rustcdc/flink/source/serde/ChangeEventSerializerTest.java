package io.rustcdc.flink.source.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.SchemaChangePolicy;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.deserializer.SchemaChangeGate;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TestPosition;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

class ChangeEventSerializerTest {
    private static final ChangeEventTypeInfo TYPE = ChangeEventTypeInfo.of(new TestPositionSerializer());
    private static final TypeSerializer<ChangeEvent> SERIALIZER = TYPE.createSerializer(new SerializerConfigImpl());

    /** Random events round-trip exactly, one by one and as a sequence. Replay: -Drustcdc.changeevent.seed=N. */
    @Test
    void randomEventsRoundTripExactly() throws IOException {
        long seed = Long.getLong("rustcdc.changeevent.seed", System.nanoTime());
        System.out.println("ChangeEventSerializerTest seed " + seed + " (replay with -Drustcdc.changeevent.seed=" + seed + ")");
        RandomChangeEvents events = new RandomChangeEvents(new Random(seed), true);
        List<ChangeEvent> written = new ArrayList<>();
        DataOutputSerializer sequence = new DataOutputSerializer(1 << 16);
        for (int i = 0; i < 1000; i++) {
            ChangeEvent event = events.event();
            String context = "seed " + seed + " event " + i + ": " + event;
            byte[] bytes = serialize(event);
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            ChangeEvent copy = SERIALIZER.deserialize(in);
            assertThat(in.available()).as(context).isZero();
            assertExactCopy(copy, event, context);
            assertThat(serialize(copy)).as(context + ": the copy's bytes (float bits, NaN payloads)").isEqualTo(bytes);
            SERIALIZER.serialize(event, sequence);
            written.add(event);
        }
        DataInputDeserializer in = new DataInputDeserializer(sequence.getCopyOfBuffer());
        for (int i = 0; i < written.size(); i++) {
            assertExactCopy(SERIALIZER.deserialize(in), written.get(i), "seed " + seed + " sequence event " + i);
        }
        assertThat(in.available()).isZero();
    }

    /**
     * A serializer that wrote an event's table, row types and shape before writes them from its cache:
     * the bytes stay those of a serializer that never saw them, past the cache's capacity too, and a
     * name UTF-8 cannot hold fails every time. Replay: -Drustcdc.changeevent.seed=N.
     */
    @Test
    void cachedTypesAndShapesWriteTheSameBytes() throws IOException {
        long seed = Long.getLong("rustcdc.changeevent.seed", System.nanoTime());
        System.out.println("ChangeEventSerializerTest cache seed " + seed);
        RandomChangeEvents events = new RandomChangeEvents(new Random(seed), true);
        List<ChangeEvent> written = new ArrayList<>();
        for (int i = 0; i < EncodingCache.CAPACITY + 44; i++) {
            written.add(events.event());
        }
        TypeSerializer<ChangeEvent> cached = SERIALIZER.duplicate();
        for (int pass = 0; pass < 3; pass++) {
            for (int i = 0; i < written.size(); i++) {
                ChangeEvent event = pass < 2 ? written.get(i) : written.get((i * 7) % written.size());
                DataOutputSerializer out = new DataOutputSerializer(256);
                cached.serialize(event, out);
                assertThat(out.getCopyOfBuffer()).as("seed " + seed + " pass " + pass + " event " + i)
                        .isEqualTo(serialize(event, SERIALIZER.duplicate()));
            }
        }

        RowType badName = RowType.of(List.of("ok", "bad\uD800"), List.of(ValueType.of(ValueKind.TEXT),
                ValueType.of(ValueKind.TEXT)));
        ChangeEvent bad = ChangeEvent.builder(Op.INSERT, TableId.of("db", "public", "t"),
                SourceInfo.snapshot("test", null)).after(Row.of(badName, "a", "b")).build();
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> cached.serialize(bad, new DataOutputSerializer(64)))
                    .isInstanceOf(IOException.class).hasMessageContaining("lone surrogate");
        }
    }

    /**
     * Equal by {@code equals}, which compares every field exactly; where an array value holds byte
     * strings, which {@code Row.equals} compares by identity, field by field instead.
     */
    static void assertExactCopy(ChangeEvent copy, ChangeEvent original, String context) {
        if (!hasBytesInArrays(original)) {
            assertThat(copy).as(context).isEqualTo(original);
            return;
        }
        assertThat(copy).as(context).usingRecursiveComparison()
                .withEqualsForType(Float::equals, Float.class) // exact: AssertJ's default has a tolerance
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(original);
    }

    private static boolean hasBytesInArrays(ChangeEvent e) {
        return hasBytesInArrays(e.before()) || hasBytesInArrays(e.after());
    }

    private static boolean hasBytesInArrays(Row row) {
        if (row == null) {
            return false;
        }
        for (int i = 0; i < row.size(); i++) {
            if (row.isPresent(i) && row.get(i) instanceof List && hasBytes((List<?>) row.get(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasBytes(List<?> list) {
        return list.stream().anyMatch(e -> e instanceof byte[] || (e instanceof List && hasBytes((List<?>) e)));
    }

    /** Format 1 as first written: these bytes must read as this event in every later release. */
    private static final String FORMAT_1_BYTES =
            "030000000473686f7001000000067075626c6963000000066f7264657273010000000100000002696403ffffffff0200"
            + "0000000000002a010000000f00000002696403ffffffff00000006616d6f756e7405ffffffff000000036e616e05ffff"
            + "ffff000000016606ffffffff000000016407ffffffff000000046e6f746508ffffffff00000004626c6f6209ffffffff"
            + "000000036461790bffffffff00000001740c000000060000000274730d00000003000000047473747a0effffffff0000"
            + "0001750fffffffff000000047461677310ffffffff02ffffffff00000004676f6e6508ffffffff000000076e6f746869"
            + "6e6701ffffffff02000000000000002a020000000400000003fe1df80301028000000002fff0000000000000020b68e9"
            + "016c6c6f20bdb00380bc032080b003020000000300ff0703040000000a303030302d30302d303002ffffffffffd23940"
            + "00000005020000000000004d4600004e94913fbdc002ffffffffffffffff00000001020000000000000001ffffffffff"
            + "fffffe040000000204000000020200000000000000010200000000000000020400000002010200000000000000030501"
            + "01000000067075626c6963000000066f72646572730000000100000002696400000006626967696e7400000000010000"
            + "0002696400000008706f73746772657300010000000100000008000000000000123401000000006553f1000000007b01"
            + "000000033737310000000000000002ffffffffffffffff00000002040000000000000001000000046e6f746500000004"
            + "7465787401000000050000000000000000000000000a0000000000000000ffffffff0000000000000000000000037768"
            + "79";

    @Test
    void bytesOfFormat1StillRead() throws IOException {
        RowType type = RowType.of(List.of("id", "amount", "nan", "f", "d", "note", "blob", "day", "t", "ts", "tstz", "u",
                "tags", "gone", "nothing"), List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.DECIMAL),
                ValueType.of(ValueKind.DECIMAL), ValueType.of(ValueKind.FLOAT32), ValueType.of(ValueKind.FLOAT64),
                ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.BYTES), ValueType.of(ValueKind.DATE),
                ValueType.temporal(ValueKind.TIME, 6), ValueType.temporal(ValueKind.TIMESTAMP, 3),
                ValueType.temporal(ValueKind.TIMESTAMP_TZ, -1), ValueType.of(ValueKind.UUID),
                ValueType.arrayOf(ValueType.of(ValueKind.INTEGER)), ValueType.of(ValueKind.TEXT),
                ValueType.of(ValueKind.BOOLEAN)));
        Row after = Row.builder(type).set(0, 42L).set(1, new BigDecimal("-12.3400")).set(2, SpecialValue.NAN)
                .set(3, -0.0f).set(4, Double.NEGATIVE_INFINITY).set(5, "h\u00e9llo \ud83d\ude00 \ud800")
                .set(6, new byte[] {0, -1, 7}).set(7, SpecialValue.zeroDate("0000-00-00"))
                .set(8, Duration.ofSeconds(-3_000_000, 5)).set(9, LocalDateTime.of(2024, 2, 29, 23, 59, 59, 999_000_000))
                .set(10, Instant.ofEpochSecond(-1, 1)).set(11, new UUID(1, -2))
                .set(12, List.of(List.of(1L, 2L), Arrays.asList(null, 3L))).set(14, null).build();
        RowShape shape = RowShape.of("public", "orders", List.of(RowShape.Column.of("id", "bigint", false)), List.of("id"));
        ChangeEvent event = ChangeEvent.builder(Op.UPDATE, TableId.of("shop", "public", "orders"),
                        SourceInfo.stream("postgres", new TestPosition(0x1234), Instant.ofEpochSecond(1_700_000_000, 123)))
                .before(Row.of(RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT))), 42L)).after(after)
                .shape(shape).transaction(TransactionInfo.of("771", 2, TransactionInfo.UNKNOWN))
                .shapeChanges(List.of(ShapeChange.columnAdded(RowShape.Column.of("note", "text", true), 5),
                        ShapeChange.unknown(List.of(), List.of(), "why")))
                .build();
        assertThat(HexFormat.of().formatHex(serialize(event))).isEqualTo(FORMAT_1_BYTES);
        ChangeEvent read = SERIALIZER.deserialize(new DataInputDeserializer(HexFormat.of().parseHex(FORMAT_1_BYTES)));
        assertThat(read).isEqualTo(event);
        assertThat(read.unchangedColumns()).containsExactly("gone");
    }

    @Test
    void aTypeWithoutPositionsRefusesAnEventWithOneAndNamesTheRemedy() throws IOException {
        TypeSerializer<ChangeEvent> serializer = ChangeEventTypeInfo.withoutPositions()
                .createSerializer(new SerializerConfigImpl());
        ChangeEvent positioned = ChangeEvent.builder(Op.TRUNCATE, TableId.of("db", "s", "t"),
                SourceInfo.stream("test", new TestPosition(7), null)).build();
        assertThatThrownBy(() -> serializer.serialize(positioned, new DataOutputSerializer(64)))
                .isInstanceOf(IOException.class).hasMessageContaining("source.getProducedType()");
        ChangeEvent unpositioned = ChangeEvent.builder(Op.READ, TableId.of("db", null, "t"),
                SourceInfo.snapshot("test", null)).build();
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(unpositioned, out);
        assertThat(serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()))).isEqualTo(unpositioned);
    }

    @Test
    void aPositionSerializerThatCannotBeMadeByItsClassIsRefusedWhenTheTypeIsMade() {
        assertThatThrownBy(() -> ChangeEventTypeInfo.of(TestPosition.POSITIONS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("public no-argument constructor");
    }

    @Test
    void theEventsDeserializerGivesTheExactTypeWithTheSourcesPositions() {
        assertThat(ChangeEventDeserializer.events().producedType(new TestPositionSerializer())).isEqualTo(TYPE);
        assertThat(ChangeEventDeserializer.events().producedType()).isEqualTo(ChangeEventTypeInfo.withoutPositions());
        assertThat(ChangeEventDeserializer.json().producedType(new TestPositionSerializer()))
                .isEqualTo(ChangeEventDeserializer.json().producedType());
        assertThat(SchemaChangeGate.wrap(ChangeEventDeserializer.events(), SchemaChangePolicy.EMIT,
                new UnregisteredMetricsGroup()).producedType(new TestPositionSerializer()))
                .as("the schema change gate in front of the deserializer").isEqualTo(TYPE);
    }

    @Test
    void theSnapshotRestoresTheSerializerAndJudgesCompatibility() throws IOException {
        TypeSerializerSnapshot<ChangeEvent> restored = roundTrip(SERIALIZER.snapshotConfiguration());
        assertThat(restored.restoreSerializer()).isEqualTo(SERIALIZER);
        assertThat(SERIALIZER.snapshotConfiguration().resolveSchemaCompatibility(restored).isCompatibleAsIs()).isTrue();

        TypeSerializer<ChangeEvent> none = ChangeEventTypeInfo.withoutPositions().createSerializer(new SerializerConfigImpl());
        TypeSerializerSnapshot<ChangeEvent> noneRestored = roundTrip(none.snapshotConfiguration());
        assertThat(noneRestored.restoreSerializer()).isEqualTo(none);
        TypeSerializerSchemaCompatibility<ChangeEvent> other = SERIALIZER.snapshotConfiguration()
                .resolveSchemaCompatibility(noneRestored);
        assertThat(other.isIncompatible()).isTrue();
        PositionFormat positions = PositionFormat.of(new TestPositionSerializer());
        assertThat(new ChangeEventSerializerSnapshot(2, positions).resolveSchemaCompatibility(
                new ChangeEventSerializerSnapshot(1, positions)).isCompatibleAfterMigration()).isTrue();
        assertThat(new ChangeEventSerializerSnapshot(1, positions).resolveSchemaCompatibility(
                new ChangeEventSerializerSnapshot(2, positions)).isIncompatible()).isTrue();
    }

    @Test
    void anUnknownSnapshotVersionOrEventFormatFailsNamingIt() {
        assertThatThrownBy(() -> new ChangeEventSerializerSnapshot().readSnapshot(2, new DataInputDeserializer(new byte[0]),
                getClass().getClassLoader())).hasMessageContaining("version 2");
        assertThatThrownBy(() -> new ChangeEventSerializerSnapshot(2, PositionFormat.none()).restoreSerializer())
                .hasMessageContaining("version 2");
    }

    @Test
    void aPositionSerializerMissingAtRestoreFailsNamingTheJar() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeInt(ChangeEventSerializer.FORMAT_1);
        StateIO.writeNullableString(out, "com.example.GonePositionSerializer");
        assertThatThrownBy(() -> new ChangeEventSerializerSnapshot().readSnapshot(1,
                new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader()))
                .hasMessageContaining("com.example.GonePositionSerializer").hasMessageContaining("class path");
    }

    private static TypeSerializerSnapshot<ChangeEvent> roundTrip(TypeSerializerSnapshot<ChangeEvent> snapshot)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        return TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(out.getCopyOfBuffer()),
                ChangeEventSerializerTest.class.getClassLoader());
    }

    static byte[] serialize(ChangeEvent event) throws IOException {
        return serialize(event, SERIALIZER);
    }

    private static byte[] serialize(ChangeEvent event, TypeSerializer<ChangeEvent> serializer) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(event, out);
        return out.getCopyOfBuffer();
    }
}
