package io.rustcdc.flink.sql.compat;

import java.util.Optional;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.TimeType;

/**
 * What Flink 1.20's planner keeps of a table's column types (Flink 2.x's twin is in {@code src/main/flink-2}):
 * its type system plans {@code TIME} at precision 0 only, so a {@code TIME(3)} column, whether declared in DDL or
 * given by a catalog, is planned as {@code TIME(0)}.
 */
public final class DeclarableTypes {
    private DeclarableTypes() {}

    /** {@code type} as the planner reads it: {@code TIME} at precision 0, in arrays too. */
    public static LogicalType asPlanned(LogicalType type) {
        if (type.getTypeRoot() == LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE && ((TimeType) type).getPrecision() > 0) {
            return new TimeType(type.isNullable(), 0);
        }
        if (type.getTypeRoot() == LogicalTypeRoot.ARRAY) {
            return new ArrayType(type.isNullable(), asPlanned(((ArrayType) type).getElementType()));
        }
        return type;
    }

    /** Why this Flink version cannot declare {@code type}, if it cannot. */
    public static Optional<String> limitation(LogicalType type) {
        return asPlanned(type).equals(type) ? Optional.empty()
                : Optional.of("Flink 1.20 plans TIME at precision 0 only (Flink 2.x keeps TIME(3))");
    }
}
