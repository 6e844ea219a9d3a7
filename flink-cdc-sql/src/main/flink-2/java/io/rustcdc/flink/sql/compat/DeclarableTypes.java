package io.rustcdc.flink.sql.compat;

import java.util.Optional;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * What Flink 2.x's planner keeps of a table's column types (Flink 1.20's twin is in {@code src/main/flink-1.20}):
 * all of them, {@code TIME} up to precision 3 included.
 */
public final class DeclarableTypes {
    private DeclarableTypes() {}

    /** {@code type} as the planner reads it. */
    public static LogicalType asPlanned(LogicalType type) {
        return type;
    }

    /** Why this Flink version cannot declare {@code type}, if it cannot. */
    public static Optional<String> limitation(LogicalType type) {
        return Optional.empty();
    }
}
