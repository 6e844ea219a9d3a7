package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;

/**
 * Reads a tagged GTID event (MySQL 8.3+, event type 42, written for a transaction run with {@code
 * gtid_next} set to a tagged GTID), which the binlog client library does not know. Unlike the
 * untagged GTID event's fixed layout, its body is a message of MySQL's serialization library: a
 * format version, the message's size in bytes (counted from its first byte), the last field id a
 * reader must know, then fields, each its id and its value. Every number is a variable-length
 * integer: the count of trailing one bits of the first byte, plus one, is the count of bytes (up to
 * 9), little-endian, the value in the bits above that count; signed numbers carry the sign in the
 * lowest bit. Fields 0 to 3 are the flags, the uuid (16 bytes, each a number), the transaction number
 * (signed) and the tag (a length and its characters); the rest (commit order, timestamps, length,
 * server versions) are not needed here and skipped. A field left out is missing from the message.
 */
final class TaggedGtids implements EventDataDeserializer<TaggedGtidEventData> {
    static final int EVENT_TYPE = 42;
    private static final int UUID_FIELD = 1, TRANSACTION_FIELD = 2, TAG_FIELD = 3;

    @Override
    public TaggedGtidEventData deserialize(ByteArrayInputStream in) throws IOException {
        byte[] data = in.read(in.available());
        Reader r = new Reader(data);
        r.unsigned(); // the serialization format's version
        long size = r.unsigned();
        r.unsigned(); // the last field a reader must know: those read here are the first four
        if (size > data.length) {
            throw failure(data, "its size says " + size + " bytes");
        }
        long msb = 0, lsb = 0, transaction = 0;
        String tag = null;
        boolean uuid = false;
        while (r.at < size && tag == null) {
            long field = r.unsigned();
            if (field == 0) {
                r.unsigned(); // flags
            } else if (field == UUID_FIELD) {
                for (int i = 0; i < 16; i++) {
                    long b = r.unsigned();
                    if (i < 8) {
                        msb = msb << 8 | b;
                    } else {
                        lsb = lsb << 8 | b;
                    }
                }
                uuid = true;
            } else if (field == TRANSACTION_FIELD) {
                transaction = r.signed();
            } else if (field == TAG_FIELD) {
                int length = (int) r.unsigned();
                if (length < 1 || length > 32 || r.at + length > size) {
                    throw failure(data, "its tag is " + length + " bytes long");
                }
                tag = new String(data, r.at, length, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
                r.at += length;
            } else {
                break; // a later field: the tag, always written, would have come before it
            }
        }
        if (!uuid || transaction < 1 || tag == null) {
            throw failure(data, "it lacks its uuid, transaction number or tag");
        }
        return new TaggedGtidEventData(new UUID(msb, lsb).toString(), tag, transaction);
    }

    private static CdcException failure(byte[] data, String why) {
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < Math.min(data.length, 64); i++) {
            hex.append(String.format("%02x", data[i]));
        }
        return new CdcException(CdcException.Kind.DECODE, "Could not read a tagged GTID event (MySQL 8.3+, type "
                + EVENT_TYPE + "): " + why + " (event body " + hex + (data.length > 64 ? "..." : "") + "). It is not "
                + "the form MySQL 8.3 to 9.7 write: report it with the server's version and this body; the source "
                + "cannot take this transaction's GTID, so it stops rather than stream it without one");
    }

    /** MySQL's variable-length integers, read from a message. */
    private static final class Reader {
        private final byte[] data;
        private int at;

        Reader(byte[] data) {
            this.data = data;
        }

        long unsigned() {
            if (at >= data.length) {
                throw failure(data, "it ends inside a number at byte " + at);
            }
            int first = data[at] & 0xff;
            int bytes = Integer.numberOfTrailingZeros(~first) + 1; // trailing ones, plus one; 9 when all are ones
            if (at + bytes > data.length) {
                throw failure(data, "it ends inside a number at byte " + at);
            }
            long rest = 0;
            for (int i = bytes - 1; i >= 1; i--) {
                rest = rest << 8 | (data[at + i] & 0xff);
            }
            at += bytes;
            if (bytes == 9) {
                return rest; // the first byte holds only the length
            }
            return first >>> bytes | rest << (8 - bytes);
        }

        long signed() {
            long u = unsigned();
            return u >>> 1 ^ -(u & 1);
        }
    }
}
