package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.Row;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.annotation.Nullable;

/**
 * Reads the parts of pgoutput protocol version 1 messages: null-terminated strings, and tuple
 * data decoded into rows, where an unchanged TOAST value ({@code u}) stays absent, and an old key
 * tuple ({@code K}) supplies only its identity columns.
 */
final class PgOutputMessages {
    private PgOutputMessages() {}

    static String string(ByteBuffer buffer) {
        int start = buffer.position();
        int end = start;
        while (buffer.get(end) != 0) {
            end++;
        }
        String s = new String(buffer.array(), buffer.arrayOffset() + start, end - start, StandardCharsets.UTF_8);
        buffer.position(end + 1);
        return s;
    }

    /**
     * Reads one TupleData into a row of {@code relation}'s columns.
     *
     * @param keyOnly whether this is an old key tuple, whose non-identity columns carry nothing
     */
    static Row tuple(ByteBuffer buffer, PgRelation relation, boolean keyOnly) {
        return tuple(buffer, relation, keyOnly, null);
    }

    /**
     * As {@link #tuple(ByteBuffer, PgRelation, boolean)}, keeping in {@code identityTexts} (when not
     * null) the text sent for each column of the replica identity, null where none was sent.
     */
    static Row tuple(ByteBuffer buffer, PgRelation relation, boolean keyOnly, @Nullable String[] identityTexts) {
        int count = buffer.getShort();
        RowDecoder decoder = relation.decoder;
        if (count != decoder.size()) {
            throw new CdcException(CdcException.Kind.DECODE, "pgoutput sent " + count + " columns for "
                    + relation.table.qualifiedName() + ", whose RELATION message had " + decoder.size());
        }
        Row.Builder row = Row.builder(decoder.rowType());
        for (int i = 0; i < count; i++) {
            byte kind = buffer.get();
            switch (kind) {
                case 'n':
                    if (!keyOnly || relation.identity[i]) {
                        row.set(i, null);
                    }
                    break;
                case 'u':
                    break; // unchanged TOAST value: not sent, so absent
                case 't': {
                    int length = buffer.getInt();
                    if (length < 0 || length > buffer.remaining()) {
                        throw new CdcException(CdcException.Kind.DECODE, "pgoutput sent a column of " + length
                                + " bytes for " + relation.table.qualifiedName() + " with " + buffer.remaining()
                                + " bytes left in its message");
                    }
                    int from = buffer.arrayOffset() + buffer.position();
                    buffer.position(buffer.position() + length);
                    row.set(i, decoder.decode(i, buffer.array(), from, from + length));
                    if (identityTexts != null && relation.identity[i]) {
                        identityTexts[i] = new String(buffer.array(), from, length, StandardCharsets.UTF_8);
                    }
                    break;
                }
                default:
                    throw new CdcException(CdcException.Kind.DECODE, "pgoutput sent column data of kind '"
                            + (char) kind + "' for " + relation.table.qualifiedName()
                            + "; protocol version 1 sends only text (t), null (n) and unchanged (u)");
            }
        }
        return row.build();
    }

    /** The error for a message of a protocol version above 1. */
    static CdcException unsupported(byte type) {
        return new CdcException(CdcException.Kind.PREREQUISITE, "pgoutput sent a message of type '" + (char) type
                + "', which belongs to protocol version 2 or later (streamed or prepared transactions). This "
                + "connector asks for proto_version 1, where a transaction arrives whole after its commit; it does "
                + "not skip such messages, since that would lose or reorder changes. Check that nothing else "
                + "consumes this slot with other options.");
    }
}
