package io.rustcdc.flink.mysql.binlog;

import static io.rustcdc.flink.mysql.binlog.BinlogBytes.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The tagged GTID event (MySQL 8.3+, type 42), from the body of one MySQL 9.1 wrote: GTID
 * {@code 55555555-4444-3333-2222-111111111111:secondtest:111111}, with commit order, timestamp,
 * transaction length and server version after the tag. The stream test on the build's MySQL is
 * {@code MySqlGtidPositionsITCase#taggedTransactionsStreamAndResumeExactly}.
 */
class TaggedGtidsTest {
    private static final String BODY = "02 78 00 00 00 02 aa aa aa aa 88 88 66 66 44 44"
            + " 22 22 22 22 22 22 04 73 20 1b 06 14 73 65 63 6f"
            + " 6e 64 74 65 73 74 08 c1 0e 0a d1 0e 0c 7f 23 35"
            + " 48 61 bd 26 06 10 59 04 12 a3 ff 0a";

    @Test
    void theGtidIsReadWithItsTag() throws IOException {
        TaggedGtidEventData data = new TaggedGtids().deserialize(new ByteArrayInputStream(bytes(BODY)));
        assertThat(data.gtid()).isEqualTo("55555555-4444-3333-2222-111111111111:secondtest:111111");
    }

    @Test
    void theEventReachesTheStreamAsAGtidEventAndUntaggedOnesStayAsTheyAre() throws IOException {
        Event tagged = ExactEventDeserializer.create().nextEvent(new ByteArrayInputStream(
                event(TaggedGtids.EVENT_TYPE, 1, 900, bytes(BODY))));
        assertThat(tagged.getHeader().getEventType()).isEqualTo(EventType.GTID);
        assertThat(((TaggedGtidEventData) tagged.getData()).gtid()).endsWith(":secondtest:111111");
        byte[] untagged = new byte[42];
        untagged[1] = 0x55; // the uuid's first byte
        untagged[17] = 7; // transaction 7
        Event plain = ExactEventDeserializer.create().nextEvent(new ByteArrayInputStream(event(33, 1, 900, untagged)));
        assertThat(((GtidEventData) plain.getData()).getMySqlGtid().toString())
                .isEqualTo("55000000-0000-0000-0000-000000000000:7");
    }

    @Test
    void aBodyCutShortFailsNamingTheEvent() {
        byte[] body = bytes(BODY);
        for (int length : new int[] {0, 3, 10, 25, 30}) {
            assertThatThrownBy(() -> new TaggedGtids().deserialize(new ByteArrayInputStream(Arrays.copyOf(body, length))))
                    .as("%d bytes", length).isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                    .hasMessageContaining("tagged GTID event");
        }
    }

    private static byte[] bytes(String hex) {
        String h = hex.replace(" ", "");
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
