package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import java.util.EnumSet;
import java.util.Set;

/**
 * How far a binlog stream has read, for its gauges and its {@link BinlogCheck}: the binlog file and
 * offset after the last event the polling thread took, the timestamp of the last event of a
 * transaction it took, the position after the last transaction it took (with its GTIDs), and the
 * bytes of the events its client received. The polling thread writes the first three (so they stand
 * still while backpressure stops it), the client's thread the bytes; any thread reads them.
 *
 * <p>Only the events of transactions date the stream: the server sends a heartbeat (on MySQL and on
 * MariaDB) with a timestamp of 0, and the events at a file's start (the format description, the
 * previous GTIDs, MariaDB's GTID list and binlog checkpoint) carry the file's creation time, which
 * after a connect would say the stream is as old as its file.
 */
final class BinlogProgress implements BinaryLogClient.EventListener {
    private static final Set<EventType> TRANSACTION_EVENTS = EnumSet.of(EventType.GTID, EventType.ANONYMOUS_GTID,
            EventType.MARIADB_GTID, EventType.QUERY, EventType.XID, EventType.XA_PREPARE, EventType.TABLE_MAP,
            EventType.WRITE_ROWS, EventType.EXT_WRITE_ROWS, EventType.UPDATE_ROWS, EventType.EXT_UPDATE_ROWS,
            EventType.DELETE_ROWS, EventType.EXT_DELETE_ROWS);

    /** A binlog file and an offset in it, read together. */
    record ReadTo(String file, long offset) {}

    private volatile ReadTo readTo;
    /** Milliseconds since the epoch, in the server's clock; -1 before any. */
    private volatile long lastEventMillis = -1;
    private volatile MySqlPosition committed;
    /** Written by the client's thread only. */
    private volatile long bytes;

    BinlogProgress(MySqlPosition from) {
        this.readTo = new ReadTo(from.file(), from.offset());
        this.committed = from;
    }

    /**
     * The polling thread took {@code event} of {@code file} (for a rotation, the file it rotates to),
     * and the stream's position between transactions is now {@code committed}.
     */
    void took(String file, Event event, MySqlPosition committed) {
        EventHeaderV4 header = event.getHeader();
        EventType type = header.getEventType();
        if (type == EventType.ROTATE) {
            readTo = new ReadTo(file, ((RotateEventData) event.getData()).getBinlogPosition());
        } else if (header.getNextPosition() > 0) { // 0: an event the server made up, or resent with no place
            readTo = new ReadTo(file, header.getNextPosition());
        }
        if (header.getTimestamp() > 0 && TRANSACTION_EVENTS.contains(type)) {
            lastEventMillis = header.getTimestamp();
        }
        this.committed = committed;
    }

    /**
     * Counts the bytes of each event the client receives, as its header's length says (a compressed
     * transaction counts as the one event it is); called on the client's thread.
     */
    @Override
    @SuppressWarnings("NonAtomicVolatileUpdate") // one writer
    public void onEvent(Event event) {
        if (event.getHeader() instanceof EventHeaderV4 header) {
            bytes += header.getEventLength();
        }
    }

    ReadTo readTo() {
        return readTo;
    }

    long lastEventMillis() {
        return lastEventMillis;
    }

    MySqlPosition committed() {
        return committed;
    }

    long bytes() {
        return bytes;
    }
}
