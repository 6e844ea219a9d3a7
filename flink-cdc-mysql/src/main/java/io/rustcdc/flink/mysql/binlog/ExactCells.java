package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.deserialization.ColumnType;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.rustcdc.flink.mysql.types.MySqlTemporal;
import java.io.IOException;
import java.io.Serializable;
import javax.annotation.Nullable;

/**
 * Row-event cells the binlog client would decode lossily, read exactly: strings as their bytes
 * (decoded later in the column's character set), BIT as its bytes, YEAR as stored (0 stays 0),
 * dates with zero parts as written, TIME as a signed duration and TIMESTAMP as seconds since the
 * epoch, all with their microseconds, VECTOR as its bytes. Other cells are left to the client.
 */
final class ExactCells {
    private static final long TIME_INT_OFFSET = 0x800000L;
    private static final long TIME_OFFSET = 0x800000000000L;
    private static final long DATETIME_OFFSET = 0x8000000000L;

    private ExactCells() {}

    /** The cell, or null when the client's own decoding is exact for {@code type}. */
    @Nullable
    static Serializable read(ColumnType type, int meta, int length, ByteArrayInputStream in) throws IOException {
        switch (type) {
            case STRING:
                return in.read(length < 256 ? in.readInteger(1) : in.readInteger(2));
            case VARCHAR:
            case VAR_STRING:
                return in.read(meta < 256 ? in.readInteger(1) : in.readInteger(2));
            case BIT:
                return in.read(((meta >> 8) * 8 + (meta & 0xff) + 7) / 8);
            case VECTOR: // its bytes after a length of `meta` bytes (4), as a BLOB's; decoded by its column
                return in.read(in.readInteger(meta));
            case YEAR:
                return in.readInteger(1);
            case DATE: {
                int v = in.readInteger(3);
                return (Serializable) MySqlTemporal.date(v >> 9, (v >> 5) & 15, v & 31);
            }
            case TIME: {
                int v = in.readInteger(3);
                v = (v << 8) >> 8; // sign-extend 24 bits
                int abs = Math.abs(v);
                return MySqlTemporal.time(v < 0, abs / 10000, (abs / 100) % 100, abs % 100, 0);
            }
            case TIME_V2:
                return time2(meta, in);
            case DATETIME: {
                long v = in.readLong(8);
                long date = v / 1000000;
                long time = v % 1000000;
                return (Serializable) MySqlTemporal.dateTime((int) (date / 10000), (int) (date / 100 % 100),
                        (int) (date % 100), (int) (time / 10000), (int) (time / 100 % 100), (int) (time % 100), 0);
            }
            case DATETIME_V2: {
                long v = bigEndian(in, 5) - DATETIME_OFFSET;
                int micros = fraction(meta, in);
                long yearMonth = (v >> 22) & 0x1FFFF;
                return (Serializable) MySqlTemporal.dateTime((int) (yearMonth / 13), (int) (yearMonth % 13),
                        (int) ((v >> 17) & 31), (int) ((v >> 12) & 31), (int) ((v >> 6) & 63), (int) (v & 63), micros);
            }
            case TIMESTAMP:
                return (Serializable) MySqlTemporal.timestamp(in.readLong(4), 0);
            case TIMESTAMP_V2: {
                long seconds = bigEndian(in, 4);
                return (Serializable) MySqlTemporal.timestamp(seconds, fraction(meta, in));
            }
            default:
                return null;
        }
    }

    /** MySQL 5.6 TIME: the integer part offset by 2^23, the fraction entangled with it when negative. */
    private static Serializable time2(int fsp, ByteArrayInputStream in) throws IOException {
        long packed;
        switch (fsp) {
            case 0:
                packed = (bigEndian(in, 3) - TIME_INT_OFFSET) << 24;
                break;
            case 1:
            case 2: {
                long intPart = bigEndian(in, 3) - TIME_INT_OFFSET;
                long frac = in.readInteger(1);
                if (intPart < 0 && frac != 0) {
                    intPart++;
                    frac -= 0x100;
                }
                packed = (intPart << 24) + frac * 10000;
                break;
            }
            case 3:
            case 4: {
                long intPart = bigEndian(in, 3) - TIME_INT_OFFSET;
                long frac = bigEndian(in, 2);
                if (intPart < 0 && frac != 0) {
                    intPart++;
                    frac -= 0x10000;
                }
                packed = (intPart << 24) + frac * 100;
                break;
            }
            default:
                packed = bigEndian(in, 6) - TIME_OFFSET;
        }
        boolean negative = packed < 0;
        long abs = Math.abs(packed);
        long hms = abs >> 24;
        return MySqlTemporal.time(negative, (hms >> 12) % 1024, (int) ((hms >> 6) % 64), (int) (hms % 64),
                (int) (abs % (1 << 24)));
    }

    /** Microseconds from the (fsp + 1) / 2 big-endian bytes that follow a DATETIME2 or TIMESTAMP2. */
    private static int fraction(int fsp, ByteArrayInputStream in) throws IOException {
        int bytes = (fsp + 1) / 2;
        if (bytes == 0) {
            return 0;
        }
        long v = bigEndian(in, bytes);
        return (int) (bytes == 1 ? v * 10000 : bytes == 2 ? v * 100 : v);
    }

    private static long bigEndian(ByteArrayInputStream in, int bytes) throws IOException {
        long v = 0;
        for (byte b : in.read(bytes)) {
            v = (v << 8) | (b & 0xff);
        }
        return v;
    }
}
