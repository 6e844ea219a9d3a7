package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.util.Arrays;

/**
 * A key order for framework tests: Java's natural order of the values (bytes unsigned), nulls last;
 * text only with the collation {@link #CASE_INSENSITIVE} (Java's case-insensitive order, so distinct
 * strings may compare equal), not without one. {@link #DESCENDING} reverses it, to show that chunks follow the order they
 * are given. No database's order: connectors test theirs against their server.
 */
public enum TestKeyOrder implements KeyOrder {
    ASCENDING,
    DESCENDING;

    /** The one collation this order orders text by. */
    public static final String CASE_INSENSITIVE = "test_ci";

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
        return directed(a instanceof byte[] ? Arrays.compareUnsigned((byte[]) a, (byte[]) b) : ((Comparable) a).compareTo(b));
    }

    @Override
    public boolean orders(ValueType type, String collation) {
        return type.kind() == ValueKind.TEXT ? CASE_INSENSITIVE.equals(collation) : orders(type);
    }

    @Override
    public int compare(ValueType type, String collation, Object a, Object b) {
        if (type.kind() != ValueKind.TEXT) {
            return compare(type, a, b);
        }
        if (!orders(type, collation)) {
            throw new IllegalArgumentException("Not ordered: " + type + " collated " + collation);
        }
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? 1 : -1;
        }
        return directed(String.CASE_INSENSITIVE_ORDER.compare((String) a, (String) b));
    }

    private int directed(int c) {
        return this == ASCENDING ? c : -c;
    }
}
