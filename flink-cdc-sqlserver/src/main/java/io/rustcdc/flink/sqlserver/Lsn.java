package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.model.PositionString;
import io.rustcdc.flink.source.model.PositionText;
import java.io.Serializable;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A SQL Server log sequence number: the 10 bytes of a {@code binary(10)} LSN (a virtual log file's
 * sequence number, 4 bytes; a log block, 4 bytes; a slot, 2 bytes), ordered as SQL Server orders
 * {@code binary(10)}: byte by byte, unsigned. Printed {@code 0000002D:000001A8:0003}, as {@code
 * sys.dm_db_log_stats} prints an LSN; {@link #parse} also reads the {@code 0x0000002D000001A80003}
 * of a {@code binary(10)} literal. Immutable.
 */
@PublicEvolving
public final class Lsn implements Serializable, Comparable<Lsn> {
    private static final long serialVersionUID = 1L;

    public static final int BYTES = 10;
    /** {@code 00000000:00000000:0000}, below every LSN of a log record. */
    public static final Lsn ZERO = new Lsn(new byte[BYTES]);
    private static final HexFormat HEX = HexFormat.of().withUpperCase();

    private final byte[] bytes;

    private Lsn(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The LSN of a {@code binary(10)} value as the driver returns it (exactly 10 bytes). */
    public static Lsn of(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            throw new IllegalArgumentException("An LSN is " + BYTES + " bytes, not "
                    + (bytes == null ? "null" : bytes.length + " (" + HEX.formatHex(bytes) + ")"));
        }
        return new Lsn(bytes.clone());
    }

    /** The LSN of its three parts: virtual log file, block (both unsigned 32-bit) and slot (unsigned 16-bit). */
    public static Lsn of(long vlf, long block, int slot) {
        if (vlf < 0 || vlf > 0xFFFF_FFFFL || block < 0 || block > 0xFFFF_FFFFL || slot < 0 || slot > 0xFFFF) {
            throw new IllegalArgumentException("LSN parts out of range: " + vlf + ":" + block + ":" + slot);
        }
        byte[] b = new byte[BYTES];
        for (int i = 0; i < 4; i++) {
            b[i] = (byte) (vlf >>> (24 - 8 * i));
            b[4 + i] = (byte) (block >>> (24 - 8 * i));
        }
        b[8] = (byte) (slot >>> 8);
        b[9] = (byte) slot;
        return new Lsn(b);
    }

    /**
     * An LSN written {@code 0000002D:000001A8:0003} (hex, 8:8:4 digits) or {@code
     * 0x0000002D000001A80003} (20 hex digits, the {@code 0x} optional); case does not matter.
     *
     * @throws IllegalArgumentException naming the text when it is neither
     */
    public static Lsn parse(String text) {
        String t = text == null ? "" : text.trim();
        String digits;
        if (t.indexOf(':') >= 0) {
            String[] parts = t.split(":", -1);
            if (parts.length != 3 || parts[0].length() != 8 || parts[1].length() != 8 || parts[2].length() != 4) {
                throw notAnLsn(text);
            }
            digits = parts[0] + parts[1] + parts[2];
        } else {
            digits = t.startsWith("0x") || t.startsWith("0X") ? t.substring(2) : t;
        }
        if (digits.length() != 2 * BYTES || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw notAnLsn(text);
        }
        return new Lsn(HexFormat.of().parseHex(digits.toLowerCase(Locale.ROOT)));
    }

    private static IllegalArgumentException notAnLsn(String text) {
        return new IllegalArgumentException("Not a SQL Server LSN: '" + text + "' (expected 0000002D:000001A8:0003 "
                + "or 0x0000002D000001A80003)");
    }

    /** The 10 bytes, as a {@code binary(10)} parameter takes them. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** {@code 0x0000002D000001A80003}: a {@code binary(10)} literal for T-SQL. */
    public String literal() {
        return "0x" + HEX.formatHex(bytes);
    }

    @Override
    public int compareTo(Lsn other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Lsn && Arrays.equals(bytes, ((Lsn) o).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** {@code 0000002D:000001A8:0003}, as {@link #writeTo} writes it. */
    @Override
    public String toString() {
        return PositionString.of(this::writeTo);
    }

    /** As {@code sys.dm_db_log_stats} prints an LSN: upper-case hex, zero-padded to 8:8:4 digits. */
    public void writeTo(PositionText out) {
        out.hex(unsigned(0, 4), 8).text(":").hex(unsigned(4, 4), 8).text(":").hex(unsigned(8, 2), 4);
    }

    /** {@code n} bytes from {@code from} as an unsigned big-endian number. */
    private long unsigned(int from, int n) {
        long v = 0;
        for (int i = from; i < from + n; i++) {
            v = v << 8 | (bytes[i] & 0xFF);
        }
        return v;
    }
}
