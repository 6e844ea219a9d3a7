package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventHeaderDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.rustcdc.flink.source.CdcException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * MariaDB's compressed binlog events ({@code log_bin_compress = ON}): a query or row event whose
 * statement text or rows (the part after the table id, flags, column count and bitmaps) are
 * compressed, under event types of their own the binlog client does not know (165 to 171). Their
 * headers are read here: such an event gets the type of its uncompressed form (the server converts
 * them the same way: the compressed types are in the order of the plain ones), and its data, once
 * decompressed, goes to the same reader as an uncompressed event's ({@link #query}, {@link #rows}).
 *
 * <p>The compressed part starts with one byte: bit 7 set, the algorithm in bits 4 to 6 (0: zlib, the
 * only one), and the number of bytes (1 to 4) of the uncompressed length, which follow it, highest
 * byte first; then the zlib stream.
 *
 * <p>The same header reader gives Oracle MySQL's tagged GTID event (type 42, MySQL 8.3+), unknown to
 * the client too, the type {@code GTID}, and {@link #gtids} reads it with {@link TaggedGtids}: the
 * stream takes it as the GTID that starts a transaction, as it is.
 *
 * <p>Not thread-safe: the header and then the data of each event are read one after the other, on
 * the binlog client's thread, and the data readers ask this header reader whether the event is
 * compressed.
 */
final class MariaDbCompressedEvents implements EventHeaderDeserializer<EventHeaderV4> {
    private static final int QUERY_COMPRESSED = 165, WRITE_ROWS_COMPRESSED_V1 = 166,
            DELETE_ROWS_COMPRESSED = 171;
    /** The uncompressed form of each compressed type, from 165 on. */
    private static final EventType[] PLAIN = {EventType.QUERY, EventType.WRITE_ROWS, EventType.UPDATE_ROWS,
        EventType.DELETE_ROWS, EventType.EXT_WRITE_ROWS, EventType.EXT_UPDATE_ROWS, EventType.EXT_DELETE_ROWS};
    /** The query event's post-header: thread id, execution time, database length, error code, status length. */
    private static final int QUERY_POST_HEADER = 4 + 4 + 1 + 2 + 2;

    private boolean compressed;
    private boolean taggedGtid;
    private int type;
    private long position;

    @Override
    public EventHeaderV4 deserialize(ByteArrayInputStream in) throws IOException {
        EventHeaderV4 header = new EventHeaderV4();
        header.setTimestamp(in.readLong(4) * 1000L);
        type = in.readInteger(1);
        compressed = type >= QUERY_COMPRESSED && type <= DELETE_ROWS_COMPRESSED;
        taggedGtid = type == TaggedGtids.EVENT_TYPE;
        EventType known = compressed ? PLAIN[type - QUERY_COMPRESSED]
                : taggedGtid ? EventType.GTID : EventType.byEventNumber(type);
        header.setEventType(known != null ? known : EventType.UNKNOWN);
        header.setServerId(in.readLong(4));
        header.setEventLength(in.readLong(4));
        header.setNextPosition(in.readLong(4));
        header.setFlags(in.readInteger(2));
        position = header.getPosition();
        return header;
    }

    /** The GTID reader: a tagged GTID event's by {@link TaggedGtids}, an untagged one's by {@code plain}. */
    EventDataDeserializer<EventData> gtids(EventDataDeserializer<? extends EventData> plain) {
        TaggedGtids tagged = new TaggedGtids();
        return in -> taggedGtid ? tagged.deserialize(in) : plain.deserialize(in);
    }

    /** The query reader, given a compressed query event's data with its statement decompressed. */
    <T extends EventData> EventDataDeserializer<T> query(EventDataDeserializer<T> plain) {
        return in -> {
            if (!compressed) {
                return plain.deserialize(in);
            }
            byte[] data = in.read(in.available());
            if (data.length < QUERY_POST_HEADER) {
                throw failure("it is shorter than a query event's header", null);
            }
            int database = data[8] & 0xff;
            int status = (data[11] & 0xff) | (data[12] & 0xff) << 8;
            return plain.deserialize(decompressedFrom(data, QUERY_POST_HEADER + status + database + 1));
        };
    }

    /**
     * A row event reader, given a compressed row event's data with its rows decompressed.
     *
     * @param extraInfo whether the event has the extra data of version 2 row events
     * @param update whether it lists two column bitmaps (before and after), as an update does
     */
    <T extends EventData> EventDataDeserializer<T> rows(EventDataDeserializer<T> plain, boolean extraInfo,
            boolean update) {
        return in -> {
            if (!compressed) {
                return plain.deserialize(in);
            }
            byte[] data = in.read(in.available());
            try {
                ByteArrayInputStream head = new ByteArrayInputStream(data);
                head.read(6 + 2); // table id, flags
                if (extraInfo) {
                    head.read(head.readInteger(2) - 2);
                }
                int columns = head.readPackedInteger();
                int bitmaps = (update ? 2 : 1) * ((columns + 7) / 8);
                head.read(bitmaps);
                return plain.deserialize(decompressedFrom(data, data.length - head.available()));
            } catch (java.io.EOFException e) {
                throw failure("its header is cut short", e);
            }
        };
    }

    /** {@code data} up to {@code offset} as it is, then the rest decompressed. */
    private ByteArrayInputStream decompressedFrom(byte[] data, int offset) {
        if (offset > data.length) {
            throw failure("its header is cut short", null);
        }
        byte[] rest;
        try {
            rest = decompress(data, offset);
        } catch (IOException e) {
            throw failure(e.getMessage(), e);
        }
        byte[] whole = new byte[offset + rest.length];
        System.arraycopy(data, 0, whole, 0, offset);
        System.arraycopy(rest, 0, whole, offset, rest.length);
        return new ByteArrayInputStream(whole);
    }

    /**
     * The bytes MariaDB compressed from {@code offset} to the end of {@code buffer}
     * ({@code binlog_buf_compress}'s format, above).
     *
     * @throws IOException naming what is wrong with them
     */
    static byte[] decompress(byte[] buffer, int offset) throws IOException {
        if (offset >= buffer.length) {
            throw new IOException("the compressed part is missing");
        }
        int first = buffer[offset] & 0xff;
        int algorithm = (first >> 4) & 7;
        int lengthBytes = first & 7;
        if ((first & 0x80) == 0 || lengthBytes < 1 || lengthBytes > 4) {
            throw new IOException("the compressed part starts with 0x" + Integer.toHexString(first) + ", which is not "
                    + "a compression header");
        }
        if (algorithm != 0) {
            throw new IOException("compression algorithm " + algorithm + " is not zlib (0), the only one MariaDB has");
        }
        int start = offset + 1 + lengthBytes;
        if (start > buffer.length) {
            throw new IOException("the compressed part is cut short");
        }
        long length = 0;
        for (int i = offset + 1; i < start; i++) {
            length = (length << 8) | (buffer[i] & 0xff);
        }
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(buffer, start, buffer.length - start);
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(length, 1 << 20));
            byte[] chunk = new byte[8192];
            while (!inflater.finished()) {
                int n = inflater.inflate(chunk);
                if (n == 0 && !inflater.finished() && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new IOException("the zlib stream ends before its end");
                }
                out.write(chunk, 0, n);
                if (out.size() > length) {
                    break;
                }
            }
            if (out.size() != length || inflater.getRemaining() != 0) {
                throw new IOException("it decompresses to " + out.size() + " bytes" + (inflater.getRemaining() != 0
                        ? " with " + inflater.getRemaining() + " bytes left over" : "") + " where its header says "
                        + length);
            }
            return out.toByteArray();
        } catch (DataFormatException e) {
            throw new IOException("the zlib stream is corrupt (" + e.getMessage() + ")", e);
        } finally {
            inflater.end();
        }
    }

    private CdcException failure(String what, Throwable cause) {
        return new CdcException(CdcException.Kind.DECODE, "The compressed binlog event of type " + type + " at offset "
                + position + " (log_bin_compress = ON) could not be decoded: " + what + ". Its changes cannot be "
                + "read: restart the source without its state once the server writes readable events, so that the "
                + "tables are read again.", cause);
    }
}
