package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.RowType;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * Each row type's field names as {@code "name":} in UTF-8, encoded once and kept per row type, by identity: a row's
 * names are then copied rather than escaped for each row. At most {@value #MAX_TYPES} types are kept, then all are
 * forgotten together. A name with a surrogate is not kept ({@code null}): its form depends on whether the document
 * is taken as bytes or as a String ({@link JsonBuffer#name}). Not thread-safe: one per {@link JsonBuffer}.
 */
@Internal
final class FieldNames {
    static final int MAX_TYPES = 256;
    private final Map<RowType, byte[][]> byType = new IdentityHashMap<>();
    private RowType lastType;
    private byte[][] lastNames;

    /** {@code type}'s names, {@code "name":} each, or null for a name with a surrogate. */
    byte[][] of(RowType type) {
        if (type != lastType) {
            byte[][] names = byType.get(type);
            if (names == null) {
                if (byType.size() >= MAX_TYPES) {
                    byType.clear();
                }
                names = encode(type);
                byType.put(type, names);
            }
            lastType = type;
            lastNames = names;
        }
        return lastNames;
    }

    int kept() {
        return byType.size();
    }

    private static byte[][] encode(RowType type) {
        byte[][] names = new byte[type.size()][];
        JsonBuffer buffer = new JsonBuffer(64);
        for (int i = 0; i < names.length; i++) {
            String name = type.name(i);
            if (name.chars().noneMatch(c -> Character.isSurrogate((char) c))) {
                names[i] = buffer.reset(true).name(name).toByteArray();
            }
        }
        return names;
    }
}
