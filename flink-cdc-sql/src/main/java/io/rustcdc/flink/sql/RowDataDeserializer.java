package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns change events into Flink SQL rows: the declared physical columns converted straight from the
 * typed values, then the requested metadata columns. Inserts and snapshot reads are +I; an update is
 * -U (with the whole old row, which the database must send; the connector's {@link ConnectorTypes}
 * names the setting in messages) and +U in {@code all} mode, +U alone in {@code upsert} mode (after a -D
 * of the old key when the update changed the primary key); a delete is -D. In {@code upsert} mode,
 * from a source that reads the values an update did not send from the table ({@code
 * rereadsUnsent}), an update still lacking a declared column had its row gone when they were read,
 * deleted or moved to another key by a later change that follows in the stream: it is a -D of its
 * key, the row's state then, rather than a row with an unknown value. A classified schema change is
 * checked by {@link SchemaChangeCheck} (a declared column removed, renamed or gone in an UNKNOWN
 * change fails at once; a replaced table fails as a dropped one), and when a row arrives with a new
 * shape, the declared columns are checked against it again: a dropped or retyped column fails the
 * job with the same message as at planning time (naming the type before a classified type change),
 * never becomes null; a new column is ignored until declared. A truncate, and a drop of the table (a
 * {@code DROP_TABLE} schema change, which a rename of the table away is too), fail the job: its
 * changelog cannot go on without retracting rows it never gets.
 */
final class RowDataDeserializer implements ChangeEventDeserializer<RowData> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RowDataDeserializer.class);

    private final SourceTables tables;
    @Nullable private final String flinkTable;
    private final DeclaredColumns columns;
    private final List<MetadataColumn> metadata;
    private final boolean upsert;
    private final boolean rereadsUnsent;
    private final TypeInformation<RowData> producedType;
    private transient Map<String, FieldConverter[]> converters;
    private transient BinaryRows rows;
    /** By row type (the same object for the rows of one table version), see {@link #fields}. */
    private transient Map<RowType, int[]> fields;
    /** Per table, declared columns whose source type changed, with the type before, until its next row checks them. */
    private transient Map<TableId, Map<String, String>> retyped;
    /** Tables the source captured whose rows are not this table's (see {@link SourceTables}), logged once each. */
    private transient Set<TableId> foreign;
    @Nullable private transient TableId lastMatched;

    /** @param flinkTable the Flink table's identifier, for messages; null when unknown */
    RowDataDeserializer(TableId table, @Nullable String flinkTable, DeclaredColumns columns,
            List<MetadataColumn> metadata, boolean upsert, TypeInformation<RowData> producedType) {
        this(SourceTables.exactly(table), flinkTable, columns, metadata, upsert, false, producedType);
    }

    /** For the one table {@code table}. */
    RowDataDeserializer(TableId table, @Nullable String flinkTable, DeclaredColumns columns,
            List<MetadataColumn> metadata, boolean upsert, boolean rereadsUnsent, TypeInformation<RowData> producedType) {
        this(SourceTables.exactly(table), flinkTable, columns, metadata, upsert, rereadsUnsent, producedType);
    }

    /**
     * @param tables the source tables whose rows are this table's; rows of other tables the source captures are
     *     skipped
     * @param flinkTable the Flink table's identifier, for messages; null when unknown
     * @param rereadsUnsent whether the source reads values an update did not send from the table (and leaves
     *     them absent only when the row is gone by then)
     */
    RowDataDeserializer(SourceTables tables, @Nullable String flinkTable, DeclaredColumns columns,
            List<MetadataColumn> metadata, boolean upsert, boolean rereadsUnsent, TypeInformation<RowData> producedType) {
        this.tables = tables;
        this.flinkTable = flinkTable;
        this.columns = columns;
        this.metadata = List.copyOf(metadata);
        this.upsert = upsert;
        this.rereadsUnsent = rereadsUnsent;
        this.producedType = producedType;
    }

    @Override
    public void deserialize(ChangeEvent e, Collector<RowData> out) {
        TableId table = e.table();
        if (!table.equals(lastMatched) && !matches(table)) {
            if (e.op() != Op.MESSAGE && foreign().add(table)) {
                LOG.warn("The source captures {} (its filter is the glob {}), whose rows are not those of '{}'{}: skipped",
                        table.qualifiedName(), tables.includePattern(), tables, readBy());
            }
            return;
        }
        switch (e.op()) {
            case READ:
            case INSERT:
                out.collect(row(e, e.after(), RowKind.INSERT));
                break;
            case UPDATE:
                if (!upsert) {
                    if (e.before() == null || !e.before().absentFields().isEmpty()) {
                        throw new CdcException(CdcException.Kind.PREREQUISITE, "An update of " + table.qualifiedName()
                                + " carries no whole old row, which changelog-mode 'all' needs for its -U row: "
                                + columns.connector.wholeRowsRemedy(table)
                                + (columns.connector.upsertNeedsOnlyKeys() ? ", or use 'changelog-mode' = 'upsert'" : ""));
                    }
                    out.collect(row(e, e.before(), RowKind.UPDATE_BEFORE));
                } else if (keyChanged(e)) {
                    // an upsert sink keys by the primary key: without this -D the old key's row stays there
                    out.collect(row(e, e.before(), RowKind.DELETE));
                }
                if (upsert && rereadsUnsent && lacksDeclaredColumn(e.after())) {
                    // the values the update did not send were read from the table, where its row was gone: the
                    // row's state then is "no row", and the change that removed it follows in the stream
                    out.collect(row(e, e.after(), RowKind.DELETE));
                } else {
                    out.collect(row(e, e.after(), RowKind.UPDATE_AFTER));
                }
                break;
            case DELETE:
                out.collect(row(e, e.before(), RowKind.DELETE));
                break;
            case TRUNCATE:
                throw new CdcException(CdcException.Kind.DECODE, "Table " + table.qualifiedName() + readBy()
                        + " was truncated; a Flink changelog cannot express a truncate without the rows it removed. "
                        + "Restart the job without state to read the table anew.");
            case SCHEMA_CHANGE:
                if (SchemaChangeRows.ddlType(e.after()) == DdlType.DROP_TABLE) {
                    throw dropped(e);
                }
                SchemaChangeCheck.check(table, flinkTable, columns, e, retyped(table));
                if (e.shape() != null) {
                    // the event's own row describes the change, not the table: types are checked with the next row
                    columns.check(table, e.shape(), null, "any more (its shape changed to " + e.shape().id() + ")");
                }
                break;
            default:
                break; // logical messages are not rows of this table
        }
    }

    private Map<String, String> retyped(TableId table) {
        if (retyped == null) {
            retyped = new HashMap<>();
        }
        return retyped.computeIfAbsent(table, t -> new java.util.LinkedHashMap<>());
    }

    /** Whether {@code table}'s rows are this table's; remembers the last table that was, as the next event's is too. */
    private boolean matches(TableId table) {
        if (tables.matches(table)) {
            lastMatched = table;
            return true;
        }
        return false;
    }

    private Set<TableId> foreign() {
        if (foreign == null) {
            foreign = new HashSet<>();
        }
        return foreign;
    }

    /** {@code " (read by Flink table x)"}, or nothing when the Flink table is unknown. */
    private String readBy() {
        return flinkTable == null ? "" : " (read by Flink table " + flinkTable + ")";
    }

    /**
     * The failure for a {@code DROP_TABLE} of the table: dropped, or renamed away (a rename is the old
     * name dropped and the new one created). The same kind as a truncate's: the rows the table held
     * are never retracted, so no changelog after it is right.
     */
    private CdcException dropped(ChangeEvent e) {
        String statement = text(e.after(), "statement");
        String words = statement == null ? "" : statement.stripLeading().toUpperCase(Locale.ROOT);
        boolean renamed = words.startsWith("RENAME") || words.startsWith("ALTER");
        String name = e.table().qualifiedName();
        return new CdcException(CdcException.Kind.DECODE, "Table " + name + readBy()
                + (renamed ? " was renamed at the source, which ends the changelog of its name as a drop does"
                        : " was dropped at the source")
                + "; a Flink changelog cannot express a drop without the rows it removed, so the table's rows are "
                + "not retracted and its changelog cannot continue. Recreate the table " + name
                + (renamed ? " (or rename it back)" : "") + " and restart the job without state to read it anew, "
                + "or remove the table from the job.");
    }

    /** The text field {@code name} of a schema change's row, or null when it has none. */
    @Nullable
    private static String text(Row row, String name) {
        int i = row.type().indexOf(name);
        return i < 0 || !row.isPresent(i) ? null : (String) row.get(i);
    }

    /** Whether {@code row} lacks the value of a declared column it has a field for. */
    private boolean lacksDeclaredColumn(Row row) {
        for (String name : columns.names) {
            int i = row.type().indexOf(name);
            if (i >= 0 && !row.isPresent(i)) {
                return true;
            }
        }
        return false;
    }

    /** Whether an update moved its row to another primary key (its old row then carries the old key). */
    private boolean keyChanged(ChangeEvent e) {
        Row before = e.before();
        Row after = e.after();
        if (before == null || after == null) {
            return false; // the source sends the old key only when it changed (PostgreSQL without REPLICA IDENTITY FULL)
        }
        for (String name : columns.primaryKey) {
            int b = before.type().indexOf(name);
            int a = after.type().indexOf(name);
            if (b >= 0 && a >= 0 && before.isPresent(b) && after.isPresent(a)
                    && !java.util.Objects.deepEquals(before.get(b), after.get(a))) {
                return true;
            }
        }
        return false;
    }

    private RowData row(ChangeEvent e, Row values, RowKind kind) {
        FieldConverter[] convert = converters(e.shape(), e);
        BinaryRows row = rows();
        row.start(kind);
        int[] fields = fields(values.type());
        for (int i = 0; i < convert.length; i++) {
            String name = columns.names.get(i);
            int field = fields[i];
            if (field < 0 || !values.isPresent(field)) {
                if (kind == RowKind.DELETE && upsert && !columns.primaryKey.contains(name)) {
                    continue; // an upsert delete needs only its key
                }
                throw new CdcException(CdcException.Kind.PREREQUISITE, "Column " + name + " of "
                        + e.table().qualifiedName() + " was not sent by the source ("
                        + columns.connector.partialRowCause() + "); its value is unknown, and it is never set to null: "
                        + columns.connector.unsentValuesRemedy(e.table()));
            }
            Object v = values.get(field);
            row.set(i, v == null ? null : convert[i].convert(v));
        }
        for (int i = 0; i < metadata.size(); i++) {
            row.set(convert.length + i, metadata.get(i).value(e, kind));
        }
        return row.finish();
    }

    /** The field of {@code type} of each declared column (-1 where it has none), looked up once per row type. */
    private int[] fields(RowType type) {
        if (fields == null || fields.size() > 64) {
            fields = new IdentityHashMap<>();
        }
        int[] known = fields.get(type);
        if (known == null) {
            known = new int[columns.names.size()];
            for (int i = 0; i < known.length; i++) {
                known[i] = type.indexOf(columns.names.get(i));
            }
            fields.put(type, known);
        }
        return known;
    }

    private BinaryRows rows() {
        if (rows == null) {
            List<LogicalType> types = new ArrayList<>(columns.types);
            metadata.forEach(m -> types.add(m.type.getLogicalType()));
            rows = new BinaryRows(types);
        }
        return rows;
    }

    private FieldConverter[] converters(RowShape shape, ChangeEvent e) {
        if (converters == null) {
            converters = new HashMap<>();
        }
        String key = shape == null ? "" : shape.id();
        FieldConverter[] known = converters.get(key);
        if (known != null) {
            return known;
        }
        Row sample = e.after() != null ? e.after() : e.before();
        TableId table = e.table();
        if (shape != null && sample != null) {
            columns.check(table, shape, sample.type(), "any more (its shape changed to " + shape.id()
                    + SchemaChangeCheck.typesBefore(retyped(table)) + ")");
            retyped(table).clear();
        }
        FieldConverter[] built = new FieldConverter[columns.names.size()];
        for (int i = 0; i < built.length; i++) {
            String name = columns.names.get(i);
            int field = sample == null ? -1 : sample.type().indexOf(name);
            if (field < 0) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "Column " + name + " of " + table.qualifiedName()
                        + " is gone from the source; the table's declaration no longer fits it");
            }
            built[i] = FieldConverter.of(sample.type().type(field), columns.types.get(i),
                    "Column " + name + " of " + table.qualifiedName() + " (" + columns.types.get(i) + ")");
        }
        converters.put(key, built);
        return built;
    }

    @Override
    public TypeInformation<RowData> producedType() {
        return producedType;
    }
}
