package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.testing.Seeds;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A field name written from a row type's kept names is byte for byte the name written from its String, as a
 * String document and as bytes, whichever form the buffer wrote it in before, for names of every kind of character
 * (unpaired surrogates among them), with more row types than are kept ({@code -Dfieldnames.seed=N} replays).
 */
class FieldNamesTest {
    private static final char[] POOL = {'a', 'Z', '_', ' ', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u00e9',
        '\u07ff', '\u0800', '\u20ac', '\ud83d', '\ude00', '\ud800', '\udfff', '\uffff'};

    @Test
    void namesFromTheKeptBytesAreTheNamesWrittenFromTheirStrings() {
        Seeds.forEach("fieldnames.seed", "fieldnames.runs", 2, random -> {
            List<RowType> types = new ArrayList<>();
            for (int t = 0; t < FieldNames.MAX_TYPES + 50; t++) {
                types.add(rowType(random));
            }
            JsonBuffer kept = new JsonBuffer(16);
            JsonBuffer plain = new JsonBuffer(16);
            for (int round = 0; round < 3; round++) {
                Collections.shuffle(types, random);
                for (RowType type : types) {
                    boolean forBytes = random.nextBoolean();
                    kept.reset(forBytes);
                    plain.reset(forBytes);
                    for (int i = 0; i < type.size(); i++) {
                        kept.name(type, i);
                        plain.name(type.name(i));
                    }
                    assertThat(kept.hasUnpairedSurrogate()).isEqualTo(plain.hasUnpairedSurrogate());
                    if (forBytes) {
                        assertThat(kept.toByteArray()).as(type.names().toString()).isEqualTo(plain.toByteArray());
                    } else {
                        assertThat(kept.toString()).as(type.names().toString()).isEqualTo(plain.toString());
                    }
                }
            }
        });
    }

    @Test
    void atMostMaxTypesAreKept() {
        FieldNames names = new FieldNames();
        Random random = new Random(3);
        for (int t = 0; t < 3 * FieldNames.MAX_TYPES; t++) {
            names.of(rowType(random));
            assertThat(names.kept()).isBetween(1, FieldNames.MAX_TYPES);
        }
    }

    private static RowType rowType(Random random) {
        int size = 1 + random.nextInt(6);
        List<String> names = new ArrayList<>();
        List<ValueType> types = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            char[] name = new char[1 + random.nextInt(random.nextInt(8) == 0 ? 80 : 10)];
            for (int j = 0; j < name.length; j++) {
                name[j] = random.nextInt(3) == 0 ? POOL[random.nextInt(POOL.length)] : (char) ('a' + random.nextInt(26));
            }
            names.add(new String(name) + i); // distinct within the type
            types.add(ValueType.of(ValueKind.TEXT));
        }
        return RowType.of(names, types);
    }
}
