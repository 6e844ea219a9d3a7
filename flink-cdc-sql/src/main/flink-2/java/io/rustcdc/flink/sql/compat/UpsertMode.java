package io.rustcdc.flink.sql.compat;

import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.RowKind;

/** The changelog mode of an upsert table on Flink 2.x (Flink 1.20's twin is in {@code src/main/flink-1.20}). */
public final class UpsertMode {
    private UpsertMode() {}

    /** Inserts, updates' new rows, and deletes that carry the key alone (the source's before image may be partial). */
    public static ChangelogMode changelogMode() {
        return ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT).addContainedKind(RowKind.UPDATE_AFTER)
                .addContainedKind(RowKind.DELETE).keyOnlyDeletes(true).build();
    }
}
