package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.SourcePosition;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** A position and a mark for framework tests: one long each. */
public final class TestPosition implements SourcePosition, Comparable<TestPosition> {
    private static final long serialVersionUID = 1L;
    final long value;

    public TestPosition(long value) {
        this.value = value;
    }

    public long value() {
        return value;
    }

    @Override
    public int compareTo(TestPosition o) {
        return Long.compare(value, o.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TestPosition && ((TestPosition) o).value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    @Override
    public String toString() {
        return "@" + value;
    }

    public static final SimpleVersionedSerializer<TestPosition> POSITIONS = new SimpleVersionedSerializer<>() {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(TestPosition p) {
            return ByteBuffer.allocate(8).putLong(p.value).array();
        }

        @Override
        public TestPosition deserialize(int version, byte[] bytes) {
            return new TestPosition(ByteBuffer.wrap(bytes).getLong());
        }
    };

    public static final SimpleVersionedSerializer<Long> MARKS = new SimpleVersionedSerializer<>() {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Long mark) {
            return ByteBuffer.allocate(8).putLong(mark).array();
        }

        @Override
        public Long deserialize(int version, byte[] bytes) throws IOException {
            return ByteBuffer.wrap(bytes).getLong();
        }
    };
}
