package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;

/**
 * SQL literals for chunk boundary keys, written back in the text PostgreSQL reads for the key's
 * declared type. Only key kinds whose order the framework reproduces appear here.
 */
final class PgLiterals {
    private PgLiterals() {}

    static String of(ValueType type, String declared, Object value) {
        return quote(text(type.kind(), value)) + "::" + declared;
    }

    /** The value's text as PostgreSQL reads it for a column of {@code type}, unquoted. */
    static String text(ValueType type, Object value) {
        return text(type.kind(), value);
    }

    static String quoteIdentifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    private static String text(ValueKind kind, Object value) {
        if (value instanceof SpecialValue) {
            return kind == ValueKind.DECIMAL ? ((SpecialValue) value).numericText() : ((SpecialValue) value).temporalText();
        }
        switch (kind) {
            case INTEGER:
            case BIGINT:
            case UUID:
                return value.toString();
            case DECIMAL:
                return ((BigDecimal) value).toPlainString();
            case DATE:
                return date((LocalDate) value);
            case TIMESTAMP:
                return timestamp((LocalDateTime) value);
            case TIMESTAMP_TZ:
                return timestamp(LocalDateTime.ofInstant((Instant) value, ZoneOffset.UTC)) + "+00";
            case BYTES:
                return "\\x" + HexFormat.of().formatHex((byte[]) value);
            case TEXT:
                return (String) value;
            default:
                throw new IllegalArgumentException("No literal for a chunk key of kind " + kind);
        }
    }

    private static String date(LocalDate d) {
        // ISO writes years past 9999 with a '+', which PostgreSQL does not read
        return d.getYear() > 0
                ? d.toString().replace("+", "")
                : LocalDate.of(1 - d.getYear(), d.getMonth(), d.getDayOfMonth()).toString() + " BC";
    }

    private static String timestamp(LocalDateTime t) {
        String time = t.toLocalTime().toString();
        if (t.getYear() > 0) {
            return t.toLocalDate() + " " + time;
        }
        return date(t.toLocalDate()).replace(" BC", "") + " " + time + " BC";
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
