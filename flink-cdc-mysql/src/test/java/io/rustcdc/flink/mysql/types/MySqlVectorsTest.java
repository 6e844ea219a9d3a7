package io.rustcdc.flink.mysql.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** VECTOR values from their bytes: little-endian 32-bit floats, each from its raw bits. */
class MySqlVectorsTest {
    private static final MySqlColumn V3 = CatalogTypes.column("d.t", "v", "vector(3)", null);

    @Test
    void theCatalogueAndTheTableMapGiveOneValueType() {
        assertThat(V3.family()).isEqualTo(MySqlColumn.Family.VECTOR);
        assertThat(V3.size()).isEqualTo(3);
        assertThat(V3.valueType()).isEqualTo(ValueType.arrayOf(ValueType.of(ValueKind.FLOAT32)));
        // the server shows VECTOR(0) as vector(4294967295): a bound, not a value's size
        assertThat(CatalogTypes.column("d.t", "v", "vector(4294967295)", null).size()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void randomBitsDecodeToTheFloatsOfThoseBits() {
        long seed = Long.getLong("rustcdc.vector.seed", System.nanoTime());
        System.out.println("MySqlVectorsTest seed " + seed + " (replay with -Drustcdc.vector.seed=" + seed + ")");
        Random random = new Random(seed);
        MySqlColumn wide = CatalogTypes.column("d.t", "v", "vector(16383)", null);
        for (int round = 0; round < 2000; round++) {
            int n = random.nextInt(40);
            byte[] bytes = new byte[4 * n];
            List<Integer> bits = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int b = random.nextInt();
                bits.add(b);
                for (int k = 0; k < 4; k++) {
                    bytes[4 * i + k] = (byte) (b >>> (8 * k));
                }
            }
            List<?> floats = (List<?>) BinlogValues.decode(wide, bytes);
            List<Integer> decoded = new ArrayList<>();
            for (Object f : floats) {
                decoded.add(Float.floatToRawIntBits((Float) f));
            }
            assertThat(decoded).as("seed %s round %s", seed, round).isEqualTo(bits);
        }
    }

    @Test
    void knownValues() {
        assertThat(BinlogValues.decode(V3, new byte[] {0, 0, (byte) 0x80, 0x3f, 0, 0, 0, (byte) 0x80}))
                .isEqualTo(List.of(1.0f, -0.0f));
        assertThat(BinlogValues.decode(V3, new byte[0])).isEqualTo(List.of());
    }

    @Test
    void bytesThatAreNoVectorOfTheColumnFailNamingIt() {
        assertThatThrownBy(() -> BinlogValues.decode(V3, new byte[6])).isInstanceOf(CdcException.class)
                .hasMessageContaining("d.t.v (vector(3))").hasMessageContaining("6 bytes, not a whole number");
        assertThatThrownBy(() -> BinlogValues.decode(V3, new byte[16])).isInstanceOf(CdcException.class)
                .hasMessageContaining("4 entries, more than the column's 3");
    }

    @Test
    void mariaDbsVectorIsRefusedNamingTheColumn() {
        assertThatThrownBy(() -> CatalogTypes.column("d.t", "v", "vector(3)", null, true))
                .isInstanceOf(CdcException.class).hasMessageContaining("Column d.t.v has type vector(3)")
                .hasMessageContaining("MariaDB's VECTOR (11.7+) is not read yet");
    }
}
