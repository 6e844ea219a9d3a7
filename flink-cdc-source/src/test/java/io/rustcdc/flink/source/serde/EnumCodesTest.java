package io.rustcdc.flink.source.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class EnumCodesTest {
    enum Color { RED, GREEN, BLUE }

    @Test
    void constantsAreWrittenAsTheirCodesNotOrdinals() throws IOException {
        EnumCodes<Color> codes = EnumCodes.of(Color.class, "color", Map.of(Color.RED, 7, Color.GREEN, 1, Color.BLUE, 127));
        DataOutputSerializer out = new DataOutputSerializer(4);
        codes.write(out, Color.RED);
        codes.write(out, Color.BLUE);
        byte[] bytes = out.getCopyOfBuffer();
        assertThat(bytes).containsExactly(7, 127);
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        assertThat(codes.read(in)).isEqualTo(Color.RED);
        assertThat(codes.read(in)).isEqualTo(Color.BLUE);
        assertThatThrownBy(() -> codes.decode((byte) 0)).isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown color code 0").hasMessageContaining("newer release");
    }

    @Test
    void everyConstantNeedsItsOwnCodeFromOneTo127() {
        assertThatThrownBy(() -> EnumCodes.of(Color.class, "color", Map.of(Color.RED, 1, Color.GREEN, 2)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("color BLUE has no state code");
        assertThatThrownBy(() -> EnumCodes.of(Color.class, "color", Map.of(Color.RED, 1, Color.GREEN, 2, Color.BLUE, 2)))
                .hasMessageContaining("share the state code 2");
        assertThatThrownBy(() -> EnumCodes.of(Color.class, "color", Map.of(Color.RED, 0, Color.GREEN, 2, Color.BLUE, 3)))
                .hasMessageContaining("color RED has no state code from 1 to 127");
    }
}
