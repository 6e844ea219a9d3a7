package io.rustcdc.flink.source.serde;

import java.io.IOException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The byte a state format writes for each constant of an enum, fixed by hand so that reordering,
 * renaming or adding constants never changes what old bytes mean (an ordinal would). Every
 * constant must have a code, from 1 to 127 (0 is never written, so a zeroed byte fails loudly);
 * a new constant without one fails the class that declares the table when it loads. Immutable.
 *
 * <pre>{@code
 * static final EnumCodes<Kind> KINDS = EnumCodes.of(Kind.class, "schema change kind",
 *         Map.of(Kind.CREATE_TABLE, 1, Kind.ALTER_TABLE, 2));
 * }</pre>
 */
@Internal
public final class EnumCodes<E extends Enum<E>> {
    private final String what;
    private final Map<E, Byte> codes;
    private final Map<Byte, E> constants = new HashMap<>();

    private EnumCodes(Class<E> type, String what, Map<E, Integer> table) {
        this.what = what;
        this.codes = new EnumMap<>(type);
        for (E constant : type.getEnumConstants()) {
            Integer code = table.get(constant);
            if (code == null || code < 1 || code > 127) {
                throw new IllegalStateException("The " + what + " " + constant + " has no state code from 1 to 127: "
                        + "give it a new one (never reuse a code)");
            }
            if (constants.put(code.byteValue(), constant) != null) {
                throw new IllegalStateException("Two constants of " + what + " share the state code " + code);
            }
            codes.put(constant, code.byteValue());
        }
    }

    /** The codes of every constant of {@code type}, as {@code table} gives them. */
    public static <E extends Enum<E>> EnumCodes<E> of(Class<E> type, String what, Map<E, Integer> table) {
        return new EnumCodes<>(type, what, table);
    }

    public byte code(E constant) {
        return codes.get(constant);
    }

    public void write(DataOutputView out, E constant) throws IOException {
        out.writeByte(code(constant));
    }

    public E read(DataInputView in) throws IOException {
        return decode(in.readByte());
    }

    /** The constant of {@code code}, failing on one this release does not know. */
    public E decode(byte code) throws IOException {
        E constant = constants.get(code);
        if (constant == null) {
            throw new IOException("Unknown " + what + " code " + code + "; this state was written by a newer release "
                    + "or is damaged");
        }
        return constant;
    }
}
