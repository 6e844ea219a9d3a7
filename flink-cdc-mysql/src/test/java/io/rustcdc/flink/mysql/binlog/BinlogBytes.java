package io.rustcdc.flink.mysql.binlog;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.Deflater;

/**
 * Binlog events written byte by byte as the servers write them (v4 header, no checksum), for the
 * decoding tests: a query, a table map of an INT and a VARCHAR column, version 2 write rows, an XID.
 */
final class BinlogBytes {
    static final int QUERY = 2, XID = 16, TABLE_MAP = 19, WRITE_ROWS_V1 = 23, WRITE_ROWS_V2 = 30, PAYLOAD = 40;
    static final long TABLE_ID = 77;

    private BinlogBytes() {}

    /** An event: the 19-byte header ({@code nextPosition} where it ends in the binlog), then {@code data}. */
    static byte[] event(int type, long timestamp, long nextPosition, byte[] data) {
        Bytes b = new Bytes();
        b.le(timestamp, 4).le(type, 1).le(1, 4).le(19 + data.length, 4).le(nextPosition, 4).le(0, 2).raw(data);
        return b.done();
    }

    /** A query event's data: no status variables, the database, then {@code sqlBytes} as they are. */
    static byte[] queryData(String database, byte[] sqlBytes) {
        return queryData(database, new byte[0], sqlBytes);
    }

    /** A query event's data: the status variables {@code status}, the database, then {@code sqlBytes} as they are. */
    static byte[] queryData(String database, byte[] status, byte[] sqlBytes) {
        byte[] db = database.getBytes(StandardCharsets.UTF_8);
        // thread id 5, execution time 7 s, error code 9: distinct, so that a swap of fields shows
        return new Bytes().le(5, 4).le(7, 4).le(db.length, 1).le(9, 2).le(status.length, 2).raw(status).raw(db).le(0, 1)
                .raw(sqlBytes).done();
    }

    /** A table map of {@code db.t (id INT, name VARCHAR(100))}, both nullable. */
    static byte[] tableMapData(String database) {
        byte[] db = database.getBytes(StandardCharsets.UTF_8);
        return new Bytes().le(TABLE_ID, 6).le(1, 2).le(db.length, 1).raw(db).le(0, 1).le(1, 1).raw(new byte[] {'t'})
                .le(0, 1).le(2, 1).raw(new byte[] {3, 15}).le(2, 1).le(100, 2).le(3, 1).done();
    }

    /** The part of a write rows event before its rows: table id, flags, (v2: extra data), width, bitmap. */
    static byte[] rowsHead(boolean v2) {
        Bytes b = new Bytes().le(TABLE_ID, 6).le(1, 2);
        if (v2) {
            b.le(2, 2);
        }
        return b.le(2, 1).le(3, 1).done();
    }

    /** The rows of a write rows event: each an INT (null when {@code ids[i]} is null) and a VARCHAR's bytes. */
    static byte[] rows(List<Integer> ids, List<byte[]> names) {
        Bytes b = new Bytes();
        for (int i = 0; i < ids.size(); i++) {
            b.le(ids.get(i) == null ? 1 : 0, 1);
            if (ids.get(i) != null) {
                b.le(ids.get(i), 4);
            }
            b.le(names.get(i).length, 1).raw(names.get(i));
        }
        return b.done();
    }

    static byte[] xidData(long xid) {
        return new Bytes().le(xid, 8).done();
    }

    static byte[] concat(byte[]... parts) {
        Bytes b = new Bytes();
        for (byte[] p : parts) {
            b.raw(p);
        }
        return b.done();
    }

    /** What MariaDB's binlog_buf_compress writes: a header byte, the length highest byte first, zlib. */
    static byte[] mariaDbCompressed(byte[] plain) {
        int lengthBytes = plain.length < 1 << 8 ? 1 : plain.length < 1 << 16 ? 2 : plain.length < 1 << 24 ? 3 : 4;
        Bytes b = new Bytes().le(0x80 | lengthBytes, 1);
        for (int i = lengthBytes - 1; i >= 0; i--) {
            b.le(plain.length >>> (8 * i), 1);
        }
        Deflater deflater = new Deflater();
        deflater.setInput(plain);
        deflater.finish();
        byte[] chunk = new byte[4096];
        while (!deflater.finished()) {
            b.out.write(chunk, 0, deflater.deflate(chunk));
        }
        deflater.end();
        return b.done();
    }

    /** A packed (length-encoded) integer. */
    static byte[] packed(long v) {
        Bytes b = new Bytes();
        if (v < 251) {
            return b.le(v, 1).done();
        }
        if (v < 1 << 16) {
            return b.le(0xfc, 1).le(v, 2).done();
        }
        if (v < 1 << 24) {
            return b.le(0xfd, 1).le(v, 3).done();
        }
        return b.le(0xfe, 1).le(v, 8).done();
    }

    /** Little-endian bytes. */
    static final class Bytes {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Bytes le(long v, int bytes) {
            for (int i = 0; i < bytes; i++) {
                out.write((int) (v >>> (8 * i)) & 0xff);
            }
            return this;
        }

        Bytes raw(byte[] bytes) {
            out.write(bytes, 0, bytes.length);
            return this;
        }

        byte[] done() {
            return out.toByteArray();
        }
    }
}
