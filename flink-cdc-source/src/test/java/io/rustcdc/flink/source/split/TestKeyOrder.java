package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.util.Arrays;

/**
 * A key order for framework tests: Java's natural order of the values (bytes unsigned), nulls last;
 * text is not ordered. {@link #DESCENDING} reverses it, to show that chunks follow the order they
 * are given. No database's order: connectors test theirs against their server.
 */
public enum TestKeyOrder implements KeyOrder {
    ASCENDING,
    DESCENDING;

    @Override
    public boolean orders(ValueType type) {
        return type.kind() != ValueKind.TEXT;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public int compare(ValueType type, Object a, Object b) {
        if (!orders(type)) {
            throw new IllegalArgumentException("Not ordered: " + type);
        }
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? 1 : -1;
        }
        int c = a instanceof byte[] ? Arrays.compareUnsigned((byte[]) a, (byte[]) b) : ((Comparable) a).compareTo(b);
        return this == ASCENDING ? c : -c;
    }
}
