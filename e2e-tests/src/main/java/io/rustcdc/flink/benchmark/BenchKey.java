package io.rustcdc.flink.benchmark;

import java.util.Locale;

/**
 * The primary key of the snapshotted table {@code bench} ({@code --key}): its bigint {@code id}, a
 * text {@code code} (the MD5 hex of the row number, so its order is not the rows'), or {@code (qty,
 * code)}, an integer and a text part. Text keys have a byte-comparing collation ({@code "C"} on
 * PostgreSQL, {@code utf8mb4_bin} on MariaDB), which the source splits into chunks.
 */
enum BenchKey {
    BIGINT("bigint id"),
    TEXT("text code (MD5 hex, 32 characters)"),
    COMPOSITE("(int qty, text code)");

    final String description;

    BenchKey(String description) {
        this.description = description;
    }

    static BenchKey of(String option) {
        return valueOf(option.toUpperCase(Locale.ROOT));
    }

    /** The primary key's column list, or null for {@link #BIGINT} (declared with the columns). */
    String keyColumns() {
        switch (this) {
            case TEXT:
                return "code";
            case COMPOSITE:
                return "qty, code";
            default:
                return null;
        }
    }
}
