package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.types.TextDecoder;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** TupleData read in place from a message that starts inside its array, and lengths it cannot hold. */
class PgOutputMessagesTest {
    private static final TableId TABLE = TableId.of("db", "public", "t");

    @Test
    void readsColumnsInPlaceFromAMessageInsideALargerArray() throws IOException {
        byte[] tuple = tuple(new Object[] {"h\u00e9llo", null, "-42"});
        byte[] around = new byte[7 + tuple.length + 5];
        System.arraycopy(tuple, 0, around, 7, tuple.length);
        ByteBuffer message = ByteBuffer.wrap(around, 7, tuple.length).slice();
        assertThat(message.arrayOffset()).isEqualTo(7);
        String[] identity = new String[3];
        Row row = PgOutputMessages.tuple(message, relation(), false, identity);
        assertThat(row.get(0)).isEqualTo("h\u00e9llo");
        assertThat(row.get(1)).isNull();
        assertThat(row.get(2)).isEqualTo(-42L);
        assertThat(identity).containsExactly("h\u00e9llo", null, null);
        assertThat(message.remaining()).isZero();
    }

    @Test
    void aLengthBelowZeroOrPastTheMessageFailsAsUndecodable() throws IOException {
        for (int length : new int[] {-1, -5, 4}) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeShort(3);
            out.writeByte('n');
            out.writeByte('n');
            out.writeByte('t');
            out.writeInt(length);
            out.write(new byte[] {'1', '2', '3'});
            ByteBuffer message = ByteBuffer.wrap(bytes.toByteArray());
            assertThatThrownBy(() -> PgOutputMessages.tuple(message, relation(), false)).as("length %d", length)
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                    .hasMessageContaining("public.t").hasMessageContaining("bytes left in its message");
        }
    }

    /** Columns: a text of the replica identity, a text, and a bigint read in place. */
    private static PgRelation relation() {
        List<String> names = List.of("a", "b", "c");
        RowType type = RowType.of(names, List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT),
                ValueType.of(ValueKind.BIGINT)));
        List<RowShape.Column> columns = List.of(RowShape.Column.of("a", "text", false),
                RowShape.Column.of("b", "text", true), RowShape.Column.of("c", "bigint", true));
        TextDecoder bigint = TextDecoder.inPlace(
                (t, from, to) -> Long.valueOf(new String(t, from, to - from, StandardCharsets.US_ASCII)));
        RowDecoder decoder = new RowDecoder(TABLE, type, columns, new TextDecoder[] {s -> s, s -> s, bigint});
        return new PgRelation(1, TABLE, RowShape.of("public", "t", columns, List.of("a")),
                new boolean[] {true, false, false}, new int[] {25, 25, 20}, new int[] {-1, -1, -1}, null, decoder, true);
    }

    private static byte[] tuple(Object[] values) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeShort(values.length);
        for (Object value : values) {
            if (value == null) {
                out.writeByte('n');
            } else {
                byte[] text = value.toString().getBytes(StandardCharsets.UTF_8);
                out.writeByte('t');
                out.writeInt(text.length);
                out.write(text);
            }
        }
        return bytes.toByteArray();
    }
}
