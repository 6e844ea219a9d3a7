package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.ChangeEvent;
import java.util.Random;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's own contract tests of a serializer, over random events. Replay: -Drustcdc.changeevent.seed=N. */
class ChangeEventSerializerContractTest extends SerializerTestBase<ChangeEvent> {
    private static final long SEED = Long.getLong("rustcdc.changeevent.seed", System.nanoTime());

    static {
        System.out.println("ChangeEventSerializerContractTest seed " + SEED + " (replay with -Drustcdc.changeevent.seed="
                + SEED + ")");
    }

    @Override
    protected TypeSerializer<ChangeEvent> createSerializer() {
        return new ChangeEventSerializer(PositionFormat.of(new TestPositionSerializer()));
    }

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    protected Class<ChangeEvent> getTypeClass() {
        return ChangeEvent.class;
    }

    @Override
    protected ChangeEvent[] getTestData() {
        RandomChangeEvents events = new RandomChangeEvents(new Random(SEED), false); // the base test also compares by equals
        ChangeEvent[] data = new ChangeEvent[40];
        for (int i = 0; i < data.length; i++) {
            data[i] = events.event();
        }
        return data;
    }

    @Override
    protected void deepEquals(String message, ChangeEvent should, ChangeEvent is) {
        ChangeEventSerializerTest.assertExactCopy(is, should, message + " (seed " + SEED + ")");
    }
}
