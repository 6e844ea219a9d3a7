package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.types.TextDecoder;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CopyRowParserTest {
    private CopyRowParser parser = new CopyRowParser();

    @Test
    void splitsOnTabsAndReadsNullsAndEscapes() {
        String[] columns = new String[5];
        parser.parse(bytes("1\t\\N\ta\\tb\\nc\\\\d\t\t\\x41\\101\\b\n"), columns);
        assertThat(columns).containsExactly("1", null, "a\tb\nc\\d", "", "AA\b");
    }

    @Test
    void keepsUtf8AndASingleEmptyColumn() {
        String[] one = new String[1];
        parser.parse(bytes("h\u00e9llo \uD83C\uDF89\n"), one);
        assertThat(one[0]).isEqualTo("h\u00e9llo \uD83C\uDF89");
        parser.parse(bytes("\n"), one);
        assertThat(one[0]).isEmpty();
    }

    @Test
    void aWrongColumnCountIsAnError() {
        assertThatThrownBy(() -> parser.parse(bytes("1\t2\n"), new String[3])).hasMessageContaining("sent 2 columns");
        assertThatThrownBy(() -> parser.parse(bytes("1\t2\t3\n"), new String[2])).hasMessageContaining("more than 2");
    }

    /**
     * Random rows of 1 to 20 columns (NULLs, empty texts, escapes of every kind, multi-byte UTF-8, some columns
     * longer than the parser's buffers, which must grow) must give each column's value, through decoders that
     * read a String and decoders that read the bytes in place.
     */
    @Test
    void decodesEachColumnInPlaceOrThroughAString() {
        Seeds.forEach("copyrowparser.seed", "copyrowparser.runs", 3, random -> {
            for (int i = 0; i < 20_000; i++) {
                if (random.nextInt(50) == 0) {
                    parser = new CopyRowParser(); // so that its buffers grow again
                }
                int count = 1 + random.nextInt(20);
                List<String> values = new ArrayList<>();
                StringBuilder line = new StringBuilder();
                for (int c = 0; c < count; c++) {
                    line.append(c == 0 ? "" : "\t");
                    values.add(column(random, line));
                }
                byte[] row = bytes(random.nextBoolean() ? line + "\n" : line.toString());
                Row.Builder out = Row.builder(decoder(count, random).rowType());
                parser.decode(row, decoder(count, random), out);
                Row decoded = out.build();
                String[] texts = new String[count];
                parser.parse(row, texts);
                for (int c = 0; c < count; c++) {
                    assertThat(decoded.get(c)).as("column %d of %s", c, line).isEqualTo(values.get(c));
                    assertThat(texts[c]).as("column %d of %s", c, line).isEqualTo(values.get(c));
                }
            }
        });
    }

    /** Appends a column's COPY text to {@code line}; returns its value. */
    private static String column(Random random, StringBuilder line) {
        if (random.nextInt(8) == 0) {
            line.append("\\N");
            return null;
        }
        StringBuilder value = new StringBuilder();
        for (int n = random.nextInt(20) == 0 ? random.nextInt(400) : random.nextInt(12); n > 0; n--) {
            switch (random.nextInt(9)) {
                case 0:
                    line.append("\\t");
                    value.append('\t');
                    break;
                case 1:
                    line.append("\\\\");
                    value.append('\\');
                    break;
                case 2:
                    line.append("\\x4").append((char) ('1' + random.nextInt(9)));
                    value.append((char) (0x41 + line.charAt(line.length() - 1) - '1'));
                    break;
                case 3:
                    line.append("\\n\\r\\b\\f\\v\\101");
                    value.append("\n\r\b\f\013A");
                    break;
                case 4:
                    line.append("\u00e9\uD83C\uDF89");
                    value.append("\u00e9\uD83C\uDF89");
                    break;
                case 5: {
                    // what COPY sends unescaped: other control bytes, DEL, space; UTF-8 with bytes 0xDC and 0x89
                    String raw = "\u0001\u0007\u000e\u001f\u007f \u0710\u0849";
                    char c = raw.charAt(random.nextInt(raw.length()));
                    line.append(c);
                    value.append(c);
                    break;
                }
                default:
                    char c = (char) ('!' + random.nextInt(90));
                    if (c == '\\') {
                        c = '/';
                    }
                    line.append(c);
                    value.append(c);
            }
        }
        return value.toString();
    }

    /** Of {@code count} text columns, each read through a String or in place, at random. */
    private static RowDecoder decoder(int count, Random random) {
        List<String> names = new ArrayList<>();
        List<RowShape.Column> columns = new ArrayList<>();
        TextDecoder[] decoders = new TextDecoder[count];
        for (int c = 0; c < count; c++) {
            names.add("c" + c);
            columns.add(RowShape.Column.of("c" + c, "text", true));
            decoders[c] = random.nextBoolean() ? text -> text
                    : TextDecoder.inPlace((t, from, to) -> new String(t, from, to - from, StandardCharsets.UTF_8));
        }
        RowType type = RowType.of(names, Collections.nCopies(count, ValueType.of(ValueKind.TEXT)));
        return new RowDecoder(TableId.of("db", "public", "t"), type, columns, decoders);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
