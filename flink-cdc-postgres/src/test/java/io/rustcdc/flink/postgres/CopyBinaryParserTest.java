package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.types.BinaryDecoder;
import io.rustcdc.flink.postgres.types.TextDecoder;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.testing.Seeds;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Binary COPY read message by message: the header, rows of NULLs and values, the end, and what breaks them. */
class CopyBinaryParserTest {
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};

    /**
     * Random rows of 1 to 12 text columns (NULLs, empty and long values, multi-byte UTF-8), the header with the
     * first row and with a header extension at times, rows one per message or several in one, the end alone
     * or after the last row.
     */
    @Test
    void readsEveryRowWhereverItsMessageEnds() {
        Seeds.forEach("copybinaryparser.seed", "copybinaryparser.runs", 3, random -> {
            for (int i = 0; i < 2_000; i++) {
                int count = 1 + random.nextInt(12);
                CopyBinaryParser parser = new CopyBinaryParser(decoder(count));
                List<List<String>> rows = new ArrayList<>();
                List<byte[]> messages = new ArrayList<>();
                ByteArrayOutputStream message = new ByteArrayOutputStream();
                header(message, random.nextInt(4) == 0 ? random.nextInt(20) : 0);
                for (int r = random.nextInt(6); r > 0; r--) {
                    List<String> row = row(random, count);
                    rows.add(row);
                    write(message, row);
                    if (random.nextBoolean()) {
                        messages.add(message.toByteArray());
                        message.reset();
                    }
                }
                short16(message, -1);
                messages.add(message.toByteArray());
                List<Row> read = new ArrayList<>();
                messages.forEach(m -> parser.rows(m, read::add));
                parser.finish();
                assertThat(read).hasSize(rows.size());
                for (int r = 0; r < rows.size(); r++) {
                    for (int c = 0; c < count; c++) {
                        assertThat(read.get(r).get(c)).as("row %d column %d", r, c).isEqualTo(rows.get(r).get(c));
                    }
                }
            }
        });
    }

    @Test
    void aWrongHeaderColumnCountLengthOrEndIsAnError() {
        ByteArrayOutputStream bad = new ByteArrayOutputStream();
        bad.writeBytes("PGCOPY\n\u00ff\r\n\u0001".getBytes(StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> new CopyBinaryParser(decoder(1)).rows(pad(bad.toByteArray()), row -> { }))
                .hasMessageContaining("signature");
        ByteArrayOutputStream oids = new ByteArrayOutputStream();
        oids.writeBytes(SIGNATURE);
        int32(oids, 1 << 16);
        int32(oids, 0);
        assertThatThrownBy(() -> new CopyBinaryParser(decoder(1)).rows(oids.toByteArray(), row -> { }))
                .hasMessageContaining("header");
        ByteArrayOutputStream three = new ByteArrayOutputStream();
        header(three, 0);
        write(three, List.of("a", "b", "c"));
        assertThatThrownBy(() -> new CopyBinaryParser(decoder(2)).rows(three.toByteArray(), row -> { }))
                .hasMessageContaining("sent 3 columns, expected 2");
        ByteArrayOutputStream cut = new ByteArrayOutputStream();
        header(cut, 0);
        short16(cut, 1);
        int32(cut, 10);
        cut.writeBytes(new byte[] {'a'});
        assertThatThrownBy(() -> new CopyBinaryParser(decoder(1)).rows(cut.toByteArray(), row -> { }))
                .hasMessageContaining("longer than its message");
        ByteArrayOutputStream unended = new ByteArrayOutputStream();
        header(unended, 0);
        write(unended, List.of("a"));
        CopyBinaryParser cutShort = new CopyBinaryParser(decoder(1));
        cutShort.rows(unended.toByteArray(), row -> { });
        assertThatThrownBy(cutShort::finish).isInstanceOf(CopyFormatException.class).hasMessageContaining("end marker");
        ByteArrayOutputStream after = new ByteArrayOutputStream();
        header(after, 0);
        short16(after, -1);
        write(after, List.of("a"));
        assertThatThrownBy(() -> new CopyBinaryParser(decoder(1)).rows(after.toByteArray(), row -> { }))
                .hasMessageContaining("after its end");
    }

    private static byte[] pad(byte[] bytes) {
        return Arrays.copyOf(bytes, bytes.length + 8);
    }

    private static List<String> row(Random random, int count) {
        List<String> row = new ArrayList<>();
        for (int c = 0; c < count; c++) {
            if (random.nextInt(6) == 0) {
                row.add(null);
                continue;
            }
            StringBuilder value = new StringBuilder();
            for (int n = random.nextInt(20) == 0 ? random.nextInt(3_000) : random.nextInt(10); n > 0; n--) {
                value.append(random.nextInt(10) == 0 ? "\u00e9\uD83C\uDF89\t\\"
                        : String.valueOf((char) (' ' + random.nextInt(95))));
            }
            row.add(value.toString());
        }
        return row;
    }

    private static void header(ByteArrayOutputStream out, int extension) {
        out.writeBytes(SIGNATURE);
        int32(out, 0);
        int32(out, extension);
        out.writeBytes(new byte[extension]);
    }

    private static void write(ByteArrayOutputStream out, List<String> row) {
        short16(out, row.size());
        for (String value : row) {
            if (value == null) {
                int32(out, -1);
            } else {
                byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                int32(out, bytes.length);
                out.writeBytes(bytes);
            }
        }
    }

    private static void short16(ByteArrayOutputStream out, int value) {
        try {
            new DataOutputStream(out).writeShort(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void int32(ByteArrayOutputStream out, int value) {
        try {
            new DataOutputStream(out).writeInt(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Of {@code count} text columns read in binary. */
    private static RowDecoder decoder(int count) {
        List<String> names = new ArrayList<>();
        List<RowShape.Column> columns = new ArrayList<>();
        TextDecoder[] decoders = new TextDecoder[count];
        BinaryDecoder[] binary = new BinaryDecoder[count];
        for (int c = 0; c < count; c++) {
            names.add("c" + c);
            columns.add(RowShape.Column.of("c" + c, "text", true));
            decoders[c] = text -> text;
            binary[c] = (b, from, to) -> new String(b, from, to - from, StandardCharsets.UTF_8);
        }
        RowType type = RowType.of(names, Collections.nCopies(count, ValueType.of(ValueKind.TEXT)));
        return new RowDecoder(TableId.of("db", "public", "t"), type, columns, decoders, binary);
    }
}
