package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.split.TestPosition;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** {@link TestPosition#POSITIONS} as a class of its own, which a restored ChangeEvent serializer can make. */
public final class TestPositionSerializer implements SimpleVersionedSerializer<TestPosition> {
    @Override
    public int getVersion() {
        return TestPosition.POSITIONS.getVersion();
    }

    @Override
    public byte[] serialize(TestPosition position) throws IOException {
        return TestPosition.POSITIONS.serialize(position);
    }

    @Override
    public TestPosition deserialize(int version, byte[] serialized) throws IOException {
        return TestPosition.POSITIONS.deserialize(version, serialized);
    }
}
