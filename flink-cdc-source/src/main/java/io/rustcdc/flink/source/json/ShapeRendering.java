package io.rustcdc.flink.source.json;

import org.apache.flink.annotation.PublicEvolving;

/** How much of an event's row shape native JSON carries. */
@PublicEvolving
public enum ShapeRendering {
    /** Id, schema, table, columns and primary key: a consumer needs nothing else. The default. */
    FULL,
    /** Id, schema and table only, for consumers that look shapes up by id. */
    ID
}
