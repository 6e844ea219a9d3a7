package io.rustcdc.flink.source.serde;

import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The bytes that immutable values (a row's type, a shape, a table id) were written as, by the
 * identity of the value: a connector hands one instance of each to every event of a table, whose
 * names then need not be checked and encoded again for each event. The bytes written are those the
 * encoder writes, cached or not. Holds at most {@value #CAPACITY} values and forgets them all when
 * full. Not thread-safe: each {@link ChangeEventSerializer} has its own.
 */
@Internal
final class EncodingCache {
    static final int CAPACITY = 256;

    /** Writes one value. */
    @FunctionalInterface
    interface Encoder<T> {
        void write(DataOutputView out, T value) throws IOException;
    }

    private final Map<Object, byte[]> encoded = new IdentityHashMap<>();
    private final DataOutputSerializer scratch = new DataOutputSerializer(256);

    /** Writes {@code value} to {@code out} as {@code encoder} does, from the bytes of its last write when cached. */
    <T> void write(DataOutputView out, T value, Encoder<T> encoder) throws IOException {
        byte[] bytes = encoded.get(value);
        if (bytes == null) {
            scratch.clear();
            encoder.write(scratch, value);
            bytes = scratch.getCopyOfBuffer();
            if (encoded.size() == CAPACITY) {
                encoded.clear();
            }
            encoded.put(value, bytes);
        }
        out.write(bytes);
    }
}
