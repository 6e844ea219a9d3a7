package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.model.ChangeEvent;
import java.time.Instant;
import java.util.Locale;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;

/** The metadata columns a table of this connector can read ({@code METADATA FROM '<key>' VIRTUAL}). */
enum MetadataColumn {
    DATABASE_NAME(DataTypes.STRING().notNull()),
    SCHEMA_NAME(DataTypes.STRING()),
    TABLE_NAME(DataTypes.STRING().notNull()),
    /** The commit time, to the millisecond; for snapshot rows 1970-01-01T00:00:00Z, as in Apache Flink CDC. */
    OP_TS(DataTypes.TIMESTAMP_LTZ(3).notNull()),
    /** +I, -U, +U or -D. */
    ROW_KIND(DataTypes.STRING().notNull()),
    SHAPE_ID(DataTypes.STRING()),
    /** The row shape as native JSON, or null when unknown. */
    SHAPE(DataTypes.STRING()),
    /** The change-log position; null for snapshot rows. */
    SOURCE_POSITION(DataTypes.STRING()),
    /** The source transaction's id; null for snapshot rows and where the connector does not tell. */
    TRANSACTION_ID(DataTypes.STRING());

    private static final JsonRenderer RENDERER = JsonRenderer.create();

    final DataType type;

    MetadataColumn(DataType type) {
        this.type = type;
    }

    String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    static MetadataColumn of(String key) {
        return valueOf(key.toUpperCase(Locale.ROOT));
    }

    Object value(ChangeEvent e, RowKind kind) {
        switch (this) {
            case DATABASE_NAME:
                return StringData.fromString(e.table().database());
            case SCHEMA_NAME:
                return e.table().schema() == null ? null : StringData.fromString(e.table().schema());
            case TABLE_NAME:
                return StringData.fromString(e.table().table());
            case OP_TS: {
                Instant commit = e.source().commitTime();
                // to the millisecond, as the column's type says; the digits after it are dropped here, once
                return TimestampData.fromEpochMillis(commit == null ? 0 : commit.toEpochMilli());
            }
            case ROW_KIND:
                return StringData.fromString(kind.shortString());
            case SHAPE_ID:
                return e.shape() == null ? null : StringData.fromString(e.shape().id());
            case SHAPE:
                return e.shape() == null ? null : StringData.fromString(RENDERER.renderShape(e.shape()));
            case SOURCE_POSITION:
                return e.source().position() == null ? null : StringData.fromString(e.source().position().toString());
            case TRANSACTION_ID:
                return e.transaction() == null ? null : StringData.fromString(e.transaction().id());
            default:
                throw new IllegalStateException();
        }
    }
}
