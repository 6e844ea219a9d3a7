package io.rustcdc.flink.source.model;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a {@link Op#SCHEMA_CHANGE} event did to its table: the {@code ddl_type} of its row ({@link
 * SchemaChangeRows}), written there as the constant's name.
 */
@PublicEvolving
public enum DdlType {
    CREATE_TABLE,
    ALTER_TABLE,
    DROP_TABLE
}
