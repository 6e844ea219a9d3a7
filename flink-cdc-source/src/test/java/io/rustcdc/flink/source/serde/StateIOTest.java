package io.rustcdc.flink.source.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Strings in state are written exactly, or not at all. */
class StateIOTest {

    @Test
    void aStringWithCharactersBeyondTheBmpRoundTrips() throws IOException {
        String s = "a\u00e9\u4e2d\ud83d\ude00z";
        DataOutputSerializer out = new DataOutputSerializer(32);
        StateIO.writeString(out, s);
        assertThat(StateIO.readString(new DataInputDeserializer(out.getCopyOfBuffer()))).isEqualTo(s);
    }

    @Test
    void aLoneSurrogateFailsInsteadOfBecomingAQuestionMark() {
        for (String s : new String[] {"x\ud83d", "\ude00x", "a\ude00\ud83db"}) {
            assertThatThrownBy(() -> StateIO.writeString(new DataOutputSerializer(16), s))
                    .isInstanceOf(IOException.class).hasMessageContaining("lone surrogate");
        }
    }
}
