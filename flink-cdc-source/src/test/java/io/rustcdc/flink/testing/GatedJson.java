package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Native JSON whose every event waits while {@link #held}, in the reader's task thread: the reader
 * emits no chunk's end and asks for no next chunk meanwhile, so a test can change a table between two
 * chunks of its snapshot. The job runs in the test's JVM (a MiniCluster); one test at a time.
 */
public final class GatedJson implements ChangeEventDeserializer<String> {
    private static final long serialVersionUID = 1L;
    /** While true, every event waits. */
    public static volatile boolean held;
    /** The events that reached the gate. */
    public static final AtomicInteger ARRIVED = new AtomicInteger();
    private final ChangeEventDeserializer<String> json = ChangeEventDeserializer.json();

    @Override
    public void deserialize(ChangeEvent event, Collector<String> out) throws Exception {
        ARRIVED.incrementAndGet();
        while (held) {
            Thread.sleep(20);
        }
        json.deserialize(event, out);
    }

    @Override
    public TypeInformation<String> producedType() {
        return json.producedType();
    }
}
