package io.rustcdc.flink.source.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.testing.Seeds;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** TableId's equality and hash ({@code -Dtableid.seed=N} replays). */
class TableIdTest {
    @Test
    void equalNamesAreEqualAndHashAsObjectsHashDoes() {
        Seeds.forEach("tableid.seed", "tableid.runs", 2, random -> {
            for (int i = 0; i < 2_000; i++) {
                String database = name(random);
                String schema = random.nextInt(4) == 0 ? null : name(random);
                String table = name(random);
                TableId id = TableId.of(database, schema, table);
                TableId same = TableId.of(new String(database), schema == null ? null : new String(schema), new String(table));
                assertThat(id.hashCode()).isEqualTo(Objects.hash(database, schema, table)).isEqualTo(same.hashCode());
                assertThat(id).isEqualTo(same);
                assertThat(id).isNotEqualTo(TableId.of(database, schema, table + "x"));
                assertThat(id).isNotEqualTo(TableId.of(database + "x", schema, table));
                assertThat(id).isNotEqualTo(TableId.of(database, schema == null ? "" : null, table));
            }
        });
    }

    private static String name(java.util.Random random) {
        char[] chars = new char[random.nextInt(12)];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = random.nextInt(5) == 0 ? (char) random.nextInt(0x10000) : (char) ('a' + random.nextInt(26));
        }
        return new String(chars);
    }
}
