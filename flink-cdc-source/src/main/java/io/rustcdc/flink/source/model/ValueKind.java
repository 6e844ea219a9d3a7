package io.rustcdc.flink.source.model;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a decoded value is, decided once from its column's declared type by the connector that
 * decodes it. Each kind has exactly one Java representation (below); renderers read values by
 * kind and never guess a type from a value.
 */
@PublicEvolving
public enum ValueKind {
    /** {@link Boolean}. PostgreSQL boolean, MySQL BIT(1) and BOOLEAN. */
    BOOLEAN,
    /** {@link Long} holding an integer of at most 32 bits, signed or unsigned; a JSON number. */
    INTEGER,
    /** {@link Long}: a signed 64-bit integer (bigint). Rendered by the wide-integer setting. */
    BIGINT,
    /** {@link java.math.BigInteger}: MySQL BIGINT UNSIGNED. Rendered by the wide-integer setting. */
    UNSIGNED_BIGINT,
    /**
     * {@link java.math.BigDecimal} with the declared scale, or a {@link SpecialValue} NaN or
     * infinity (PostgreSQL numeric).
     */
    DECIMAL,
    /** {@link Float}; non-finite values are the floats themselves. */
    FLOAT32,
    /** {@link Double}; non-finite values are the doubles themselves. */
    FLOAT64,
    /**
     * {@link String}: character types in their character set, ENUM labels, SET label lists, JSON
     * documents' text, and the text of source types without a closer kind (PostgreSQL inet,
     * interval, timetz, ranges, domains, enums).
     */
    TEXT,
    /** {@code byte[]}: binary strings, blobs, bytea, GEOMETRY. */
    BYTES,
    /** {@code byte[]} of exactly ceil(n/8) bytes: MySQL BIT(n) with n > 1. */
    BITS,
    /** {@link java.time.LocalDate}, or a {@link SpecialValue} infinity or zero date. */
    DATE,
    /**
     * {@link java.time.Duration}: a time of day (PostgreSQL time, up to 24:00:00) or a signed
     * duration (MySQL TIME, up to 838:59:59).
     */
    TIME,
    /** {@link java.time.LocalDateTime} without zone, or a {@link SpecialValue}. */
    TIMESTAMP,
    /** {@link java.time.Instant}, or a {@link SpecialValue} infinity. */
    TIMESTAMP_TZ,
    /** {@link java.util.UUID}. */
    UUID,
    /**
     * {@link java.util.List} of element values; a multi-dimensional value nests lists, all under
     * the one array type (PostgreSQL does not fix a column's dimension count).
     */
    ARRAY
}
