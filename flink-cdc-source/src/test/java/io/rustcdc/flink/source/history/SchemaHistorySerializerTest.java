package io.rustcdc.flink.source.history;

import static io.rustcdc.flink.source.history.SchemaHistoryTest.A;
import static io.rustcdc.flink.source.history.SchemaHistoryTest.B;
import static io.rustcdc.flink.source.history.SchemaHistoryTest.NOTE;
import static io.rustcdc.flink.source.history.SchemaHistoryTest.ORDERS;
import static io.rustcdc.flink.source.history.SchemaHistoryTest.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaHistorySerializerTest {
    private static final String VERSION_1_BYTES = "/serializer-snapshots/schema-history-v1.bin";
    private static final String VERSION_2_BYTES = "/serializer-snapshots/schema-history-v2.bin";

    /** The history whose version-1 bytes are kept in test resources; never change it. */
    static SchemaHistory sample() {
        SchemaHistory h = new SchemaHistory(16);
        h.recordDdl("0/10", SchemaChange.create(ORDERS, "CREATE TABLE orders (id bigint primary key)", A, T0));
        h.recordDdl("0/20", SchemaChange.alter(ORDERS, "ALTER TABLE orders ADD COLUMN note text",
                List.of(ColumnChange.add(NOTE)), T0.plusSeconds(1)));
        h.recordDdl("0/30", SchemaChange.alter(ORDERS, "ALTER TABLE orders RENAME note TO remark",
                List.of(ColumnChange.rename("note", "remark"), ColumnChange.modify(RowShape.Column.of("remark", "text", false)),
                        ColumnChange.add(RowShape.Column.of("x", "int", true), 0), ColumnChange.drop("x")),
                T0.plusNanos(1_500)));
        h.recordDdl("shape:public.orders:0/40", SchemaChange.rowShape(ORDERS, B, T0.plusSeconds(3)));
        TableId bare = TableId.of("shop", null, "outbox__messages");
        h.recordDdl("", SchemaChange.drop(TableId.of("shop", "public", "gone"), "DROP TABLE gone", T0.plusSeconds(4)));
        h.recordDdl("ünïcødé 🎉", SchemaChange.drop(bare, null, T0.plusSeconds(5)));
        return h;
    }

    @Test
    void roundTrips() throws IOException {
        SchemaHistory original = sample();
        byte[] bytes = SchemaHistorySerializer.INSTANCE.serialize(original);
        SchemaHistory copy = SchemaHistorySerializer.INSTANCE.deserialize(SchemaHistorySerializer.INSTANCE.getVersion(), bytes);
        assertSameHistory(copy, original);
        // the restored copy still behaves: identities, version counter and retention carry over
        assertThat(copy.recordDdl("0/20", SchemaChange.alter(ORDERS, "x", List.of(ColumnChange.add(NOTE)), T0))).isEqualTo(2);
        assertThat(copy.recordDdl("0/99", SchemaChange.rowShape(ORDERS, A, T0))).isEqualTo(original.latestVersion() + 1);
        assertThat(copy.retention()).isEqualTo(16);
    }

    @Test
    void readsBytesWrittenByVersion1() throws IOException {
        byte[] bytes;
        try (InputStream in = getClass().getResourceAsStream(VERSION_1_BYTES)) {
            assertThat(in).as("resource %s", VERSION_1_BYTES).isNotNull();
            bytes = in.readAllBytes();
        }
        assertSameHistory(SchemaHistorySerializer.INSTANCE.deserialize(1, bytes), sample());
    }

    @Test
    void version2WritesKindsAndColumnChangesAsCodes() throws IOException {
        byte[] frozen;
        try (InputStream in = getClass().getResourceAsStream(VERSION_2_BYTES)) {
            assertThat(in).as("resource %s", VERSION_2_BYTES).isNotNull();
            frozen = in.readAllBytes();
        }
        assertThat(SchemaHistorySerializer.INSTANCE.getVersion()).isEqualTo(2);
        assertSameHistory(SchemaHistorySerializer.INSTANCE.deserialize(2, frozen), sample());
        assertThat(SchemaHistorySerializer.INSTANCE.serialize(sample())).as("the writer still writes the frozen bytes")
                .isEqualTo(frozen);
        // retention (4), latest version (8), nested format (4), entry count (4), version (8), ddl id "0/10" (4 + 4):
        // CREATE_TABLE's code
        assertThat(frozen[4 + 8 + 4 + 4 + 8 + 4 + 4]).isEqualTo((byte) 1);
    }

    @Test
    void refusesUnknownVersionWithAClearMessage() {
        assertThatThrownBy(() -> SchemaHistorySerializer.INSTANCE.deserialize(99, new byte[0]))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("serializer version 99");
    }

    @Test
    void refusesLeftoverBytes() throws IOException {
        byte[] bytes = SchemaHistorySerializer.INSTANCE.serialize(sample());
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 3);
        int version = SchemaHistorySerializer.INSTANCE.getVersion();
        assertThatThrownBy(() -> SchemaHistorySerializer.INSTANCE.deserialize(version, longer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("3 unread bytes");
    }

    private static void assertSameHistory(SchemaHistory actual, SchemaHistory expected) {
        assertThat(actual.entries()).isEqualTo(expected.entries());
        assertThat(actual.latestVersion()).isEqualTo(expected.latestVersion());
        assertThat(actual.retention()).isEqualTo(expected.retention());
    }

    /** Writes the version-1 snapshot; run once when the format version was introduced. */
    public static void main(String[] args) throws IOException {
        Path target = Path.of(args[0]);
        Files.createDirectories(target.getParent());
        Files.write(target, SchemaHistorySerializer.INSTANCE.serialize(sample()));
    }
}
