package io.rustcdc.flink.sql.compat;

import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.RowKind;

/**
 * The changelog mode of an upsert table on Flink 1.20, which has no {@code keyOnlyDeletes}: its
 * planner reads an upsert source's deletes by key (ChangelogNormalize keeps the last row per key and
 * emits it as the delete), as it does for upsert-kafka's key-only tombstones. Flink 2.x's twin is in
 * {@code src/main/flink-2}.
 */
public final class UpsertMode {
    private UpsertMode() {}

    /** Inserts, updates' new rows, and deletes, read by key. */
    public static ChangelogMode changelogMode() {
        return ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT).addContainedKind(RowKind.UPDATE_AFTER)
                .addContainedKind(RowKind.DELETE).build();
    }
}
