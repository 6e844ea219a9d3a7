package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.KeyOrder;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * What the framework's test connectors share: {@link TestPosition}s, marks that are the last
 * position a chunk reflects, and ascending key order.
 */
public abstract class TestConnector implements CdcConnector<TestPosition, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public SimpleVersionedSerializer<TestPosition> positionSerializer() {
        return TestPosition.POSITIONS;
    }

    @Override
    public SimpleVersionedSerializer<Long> markSerializer() {
        return TestPosition.MARKS;
    }

    @Override
    public KeyOrder keyOrder() {
        return TestKeyOrder.ASCENDING;
    }

    @Override
    public boolean reflects(Long mark, TestPosition position) {
        return position.value() <= mark;
    }

    @Override
    public TestPosition handoffEnd(Long mark) {
        return new TestPosition(mark + 1);
    }
}
