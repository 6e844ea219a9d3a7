package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.TransactionPayloadEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.airlift.compress.zstd.ZstdInputStream;
import io.rustcdc.flink.source.CdcException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.function.Consumer;

/**
 * Oracle MySQL's compressed transactions ({@code binlog_transaction_compression = ON}, MySQL 8.0.20+):
 * a {@code Transaction_payload_event} holds the transaction's events (its {@code BEGIN}, table maps,
 * row events and {@code XID}; the GTID event stays outside, before it), compressed with zstd (read by
 * aircompressor's pure-Java decoder, which Flink's runtime uses too, so that the SQL connector jar can
 * relocate it).
 *
 * <p>The event is read here into a {@link Payload} that keeps the compressed bytes; {@link #expand}
 * then decodes the events inside one at a time, by the same readers as uncompressed events ({@link
 * ExactCells}, {@link RawTableMaps}) and with the same table maps, and hands each on as an ordinary
 * event. (The binlog client's own reader decodes them with its default, lossy cell readers, all at
 * once.) Each event inside gets the payload's place in the binlog: its start and its end, which the
 * server also reports as their end position. So a transaction read from a payload ends at the
 * payload's end, and a position inside it (its start plus the row events and rows taken, see {@code
 * MySqlPosition}) resumes exactly as inside an uncompressed transaction: the server sends the payload
 * again and the rows already taken are skipped.
 *
 * <p>Not thread-safe: one per binlog client, used on its thread.
 */
final class CompressedTransactions implements EventDataDeserializer<TransactionPayloadEventData> {
    // the payload event's fields (binary_log::Transaction_payload_event): type, length, value, all packed
    private static final int END = 0, PAYLOAD_SIZE = 1, COMPRESSION_TYPE = 2, UNCOMPRESSED_SIZE = 3;
    /** binary_log::transaction::compression::type */
    static final int ZSTD = 0, NONE = 255;

    /** Reads the events inside a payload: the stream's readers and table maps, without checksums. */
    private final EventDeserializer inner;

    CompressedTransactions(EventDeserializer inner) {
        this.inner = inner;
    }

    @Override
    public TransactionPayloadEventData deserialize(ByteArrayInputStream in) throws IOException {
        Payload payload = new Payload(inner);
        payload.setCompressionType(-1);
        payload.setUncompressedSize(-1);
        payload.setPayloadSize(-1);
        while (in.available() > 0) {
            int field = in.readPackedInteger();
            if (field == END) {
                break;
            }
            byte[] value = in.read(in.readPackedInteger());
            switch (field) {
                case PAYLOAD_SIZE:
                    payload.setPayloadSize(Math.toIntExact(packed(value)));
                    break;
                case COMPRESSION_TYPE:
                    payload.setCompressionType(Math.toIntExact(packed(value)));
                    break;
                case UNCOMPRESSED_SIZE:
                    payload.setUncompressedSize(packed(value));
                    break;
                default:
                    break; // a field of a later server: its length says how far to skip
            }
        }
        if (payload.getPayloadSize() < 0 || payload.getPayloadSize() != in.available()) {
            throw new IOException("a Transaction_payload_event whose payload size " + payload.getPayloadSize()
                    + " is not the " + in.available() + " bytes that follow its header");
        }
        payload.setPayload(in.read(payload.getPayloadSize()));
        payload.setUncompressedEvents(new ArrayList<>()); // none decoded here: see expand
        return payload;
    }

    /** A packed (length-encoded) integer that takes exactly {@code bytes}. */
    private static long packed(byte[] bytes) throws IOException {
        if (bytes.length == 0) {
            throw new IOException("an empty field in a Transaction_payload_event");
        }
        int first = bytes[0] & 0xff;
        int size = first < 251 ? 0 : first == 0xfc ? 2 : first == 0xfd ? 3 : first == 0xfe ? 8 : -1;
        if (size < 0 || bytes.length != size + 1) {
            throw new IOException("a field of " + bytes.length + " bytes in a Transaction_payload_event is not one "
                    + "packed integer");
        }
        if (size == 0) {
            return first;
        }
        long v = 0;
        for (int i = size; i >= 1; i--) {
            v = (v << 8) | (bytes[i] & 0xff);
        }
        return v;
    }

    /**
     * {@code event} itself, or when it is a compressed transaction, each event inside it, in order,
     * placed at the payload event.
     *
     * @param where the binlog file, for the message of a payload that cannot be decoded
     * @throws CdcException of kind DECODE naming the payload's position when its events cannot be read
     */
    static void expand(Event event, String where, Consumer<Event> events) {
        if (!(event.getData() instanceof Payload)) {
            events.accept(event);
            return;
        }
        EventHeaderV4 outer = event.getHeader();
        Payload payload = event.getData();
        try {
            payload.forEachEvent(outer, events);
        } catch (IOException | RuntimeException e) {
            throw new CdcException(CdcException.Kind.DECODE, "The compressed transaction (Transaction_payload_event) "
                    + "at " + where + ":" + outer.getPosition() + " could not be decoded: " + e.getMessage() + ". Its "
                    + "changes cannot be read: restart the source without its state once the server writes readable "
                    + "events (binlog_transaction_compression = OFF), so that the tables are read again.", e);
        }
    }

    /** A payload event as read: its compressed events, decoded only when {@link #expand}ed. */
    static final class Payload extends TransactionPayloadEventData {
        private static final long serialVersionUID = 1L;
        private final transient EventDeserializer inner;

        Payload(EventDeserializer inner) {
            this.inner = inner;
        }

        void forEachEvent(EventHeaderV4 outer, Consumer<Event> events) throws IOException {
            Counting counted = new Counting(uncompressed());
            try (ByteArrayInputStream in = new ByteArrayInputStream(counted)) {
                for (Event e = inner.nextEvent(in); e != null; e = inner.nextEvent(in)) {
                    events.accept(new Event(placed(e.getHeader(), outer), e.getData()));
                }
            }
            if (getUncompressedSize() >= 0 && counted.count != getUncompressedSize()) {
                throw new IOException("its events take " + counted.count + " bytes where the event says "
                        + getUncompressedSize());
            }
        }

        private InputStream uncompressed() throws IOException {
            java.io.ByteArrayInputStream bytes = new java.io.ByteArrayInputStream(getPayload());
            switch (getCompressionType()) {
                case ZSTD:
                    return new ZstdInputStream(bytes);
                case NONE:
                    return bytes;
                default:
                    throw new IOException("compression type " + getCompressionType() + " is not zstd (" + ZSTD
                            + ") or none (" + NONE + ")");
            }
        }

        /** The inner event's own header, at the payload's start and end in the binlog. */
        private static EventHeaderV4 placed(EventHeaderV4 own, EventHeaderV4 outer) {
            EventHeaderV4 header = new EventHeaderV4();
            header.setEventType(own.getEventType());
            header.setTimestamp(own.getTimestamp() != 0 ? own.getTimestamp() : outer.getTimestamp());
            header.setServerId(own.getServerId());
            header.setFlags(own.getFlags());
            header.setEventLength(outer.getEventLength());
            header.setNextPosition(outer.getNextPosition());
            return header;
        }
    }

    /** Counts the bytes read through it, to check the payload's uncompressed size. */
    private static final class Counting extends FilterInputStream {
        long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            count += skipped;
            return skipped;
        }
    }
}
