package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/** What a declared SQL table does on each class of schema change. */
class SchemaChangeCheckTest {
    private static final TableId TABLE = TableId.of("shop", "public", "orders");
    private static final SourcePosition POSITION = new SourcePosition() {
        private static final long serialVersionUID = 1L;

        @Override
        public String toString() {
            return "0/16B3748";
        }
    };
    private static final RowShape.Column ID = RowShape.Column.of("id", "integer", false);
    private static final RowShape.Column QTY = RowShape.Column.of("qty", "integer", true);
    private static final RowShape.Column NOTE = RowShape.Column.of("note", "character varying(64)", true);
    private static final RowShape.Column EXTRA = RowShape.Column.of("extra", "text", true);

    private final List<RowData> out = new ArrayList<>();

    /** Declares id INT NOT NULL, qty INT, note STRING. */
    private static RowDataDeserializer deserializer() {
        return new RowDataDeserializer(TABLE, "default_catalog.default_database.orders",
                new DeclaredColumns(List.of("id", "qty", "note"),
                        List.of(new IntType(false), new IntType(), VarCharType.STRING_TYPE), List.of(), new PostgresTypes()),
                List.of(), false, null);
    }

    private static RowShape shape(RowShape.Column... columns) {
        return RowShape.of("public", "orders", List.of(columns), List.of("id"));
    }

    private static ChangeEvent change(RowShape after, ShapeChange... changes) {
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, TABLE, SourceInfo.stream("postgres", POSITION, Instant.EPOCH))
                .after(SchemaChangeRows.of(TABLE, DdlType.ALTER_TABLE, null)).shape(after)
                .shapeChanges(List.of(changes)).build();
    }

    private static ChangeEvent insert(RowShape shape, List<ValueKind> kinds, Object... values) {
        List<String> names = new ArrayList<>();
        List<ValueType> types = new ArrayList<>();
        for (int i = 0; i < shape.columns().size(); i++) {
            names.add(shape.columns().get(i).name());
            types.add(ValueType.of(kinds.get(i)));
        }
        return ChangeEvent.builder(Op.INSERT, TABLE, SourceInfo.stream("postgres", POSITION, Instant.EPOCH))
                .after(Row.of(RowType.of(names, types), values)).shape(shape).build();
    }

    private void deserialize(RowDataDeserializer d, ChangeEvent e) {
        d.deserialize(e, new Collector<>() {
            @Override
            public void collect(RowData record) {
                out.add(record);
            }

            @Override
            public void close() {}
        });
    }

    @Test
    void aNullableColumnAddedKeepsWorking() {
        RowDataDeserializer d = deserializer();
        RowShape after = shape(ID, QTY, NOTE, EXTRA);
        deserialize(d, change(after, ShapeChange.columnAdded(EXTRA, 3)));
        deserialize(d, insert(after, List.of(ValueKind.INTEGER, ValueKind.INTEGER, ValueKind.TEXT, ValueKind.TEXT),
                1L, 2L, "n", "e"));
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getArity()).isEqualTo(3);
        assertThat(out.get(0).getString(2).toString()).isEqualTo("n");
    }

    @Test
    void aDeclaredColumnRemovedFailsWithTableColumnAndBothTypes() {
        assertThatThrownBy(() -> deserialize(deserializer(), change(shape(ID, NOTE), ShapeChange.columnRemoved(QTY))))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                .hasMessageContaining("The table declared for public.orders does not fit the source any more (at "
                        + "0/16B3748, read by Flink table default_catalog.default_database.orders):")
                .hasMessageContaining("column qty (declared INT, source type integer) was removed");
    }

    @Test
    void aDeclaredColumnRenamedFailsNamingTheNewName() {
        RowShape.Column amount = RowShape.Column.of("amount", "integer", true);
        assertThatThrownBy(() -> deserialize(deserializer(), change(shape(ID, amount, NOTE),
                ShapeChange.columnRenamed(QTY, amount))))
                .hasMessageContaining("column qty (declared INT, source type integer) was renamed to amount; declare that name");
    }

    @Test
    void anUnknownChangeOfADeclaredColumnFails() {
        RowShape.Column amount = RowShape.Column.of("amount", "integer", true);
        assertThatThrownBy(() -> deserialize(deserializer(), change(shape(ID, amount, NOTE),
                ShapeChange.unknown(List.of(QTY), List.of(amount), "a rename or a drop and an add"))))
                .hasMessageContaining("column qty (declared INT, source type integer) is gone in a change the source "
                        + "cannot tell apart: unknown [qty integer NULL] -> [amount integer NULL]");
    }

    @Test
    void anUnknownChangeOfUndeclaredColumnsGoesOn() {
        RowShape.Column other = RowShape.Column.of("other", "text", true);
        deserialize(deserializer(), change(shape(ID, QTY, NOTE, other),
                ShapeChange.unknown(List.of(EXTRA), List.of(other), "a rename or a drop and an add")));
        assertThat(out).isEmpty();
    }

    /** A widening that keeps every value, but not one INT holds: the next row fails, naming both source types. */
    @Test
    void aRetypedDeclaredColumnTheDeclarationCannotHoldFailsWithBothTypes() {
        RowDataDeserializer d = deserializer();
        RowShape.Column qtyBig = RowShape.Column.of("qty", "bigint", true);
        RowShape after = shape(ID, qtyBig, NOTE);
        deserialize(d, change(after, ShapeChange.columnChanged(QTY, qtyBig)));
        assertThatThrownBy(() -> deserialize(d, insert(after, List.of(ValueKind.INTEGER, ValueKind.BIGINT,
                ValueKind.TEXT), 1L, 2L, "n")))
                .hasMessageContaining("column qty: declared INT cannot hold the source type bigint exactly")
                .hasMessageContaining("before the change at the source, column qty was integer");
    }

    /**
     * A type change that may have rewritten the stored values without row changes (numeric(10,2) to numeric(10,1)
     * rounds them; integer to text converts them) fails at the change, naming both source types: the rows
     * downstream would keep the old values (found by an adversarial probe of the SQL path).
     */
    @Test
    void aRetypedDeclaredColumnWhoseValuesMayHaveBeenRewrittenFailsAtTheChange() {
        RowShape.Column qtyText = RowShape.Column.of("qty", "text", true);
        assertThatThrownBy(() -> deserialize(deserializer(), change(shape(ID, qtyText, NOTE),
                ShapeChange.columnChanged(QTY, qtyText))))
                .hasMessageContaining("column qty (declared INT) changed its source type from integer to text, which "
                        + "may have rewritten its stored values")
                .hasMessageContaining("restart the job without state");
        RowShape.Column shorter = RowShape.Column.of("note", "character varying(8)", true);
        assertThatThrownBy(() -> deserialize(deserializer(), change(shape(ID, QTY, shorter),
                ShapeChange.columnChanged(NOTE, shorter))))
                .hasMessageContaining("changed its source type from character varying(64) to character varying(8)");
        // an undeclared column's change is not the table's business
        RowShape.Column extraInt = RowShape.Column.of("extra", "integer", true);
        deserialize(deserializer(), change(shape(ID, QTY, NOTE, extraInt), ShapeChange.columnChanged(EXTRA, extraInt)));
        assertThat(out).isEmpty();
    }

    @Test
    void aRetypedDeclaredColumnTheDeclarationStillHoldsKeepsWorking() {
        RowDataDeserializer d = deserializer();
        RowShape.Column wider = RowShape.Column.of("note", "character varying(128)", true);
        RowShape after = shape(ID, QTY, wider);
        deserialize(d, change(after, ShapeChange.columnChanged(NOTE, wider)));
        deserialize(d, insert(after, List.of(ValueKind.INTEGER, ValueKind.INTEGER, ValueKind.TEXT), 1L, 2L, "n"));
        assertThat(out).hasSize(1);
    }

    @Test
    void aReplacedTableFailsLikeADroppedOne() {
        RowShape after = shape(ID);
        assertThatThrownBy(() -> deserialize(deserializer(), change(after,
                ShapeChange.tableReplaced(after, "relation 16384 was replaced by relation 16390"))))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                .hasMessageContaining("Table public.orders (read by Flink table default_catalog.default_database.orders) "
                        + "was replaced at the source (relation 16384 was replaced by relation 16390)")
                .hasMessageContaining("Restart the job without state");
    }

    /** MariaDB's CREATE OR REPLACE TABLE of a table the source held no shape of: unknown, and maybe a replacement. */
    @Test
    void anUnknownCreateOfTheTableFailsAsAReplacedOne() {
        ShapeChange unknown = ShapeChange.unknown(List.of(), List.of(ID, QTY, NOTE), "CREATE OR REPLACE TABLE of a table "
                + "the source holds no shape of: created, or dropped and created again, which the source cannot tell apart");
        ChangeEvent create = ChangeEvent.builder(Op.SCHEMA_CHANGE, TABLE, SourceInfo.stream("mariadb", POSITION,
                Instant.EPOCH)).after(SchemaChangeRows.of(TABLE, DdlType.CREATE_TABLE, "CREATE OR REPLACE TABLE orders "
                + "(id INT PRIMARY KEY, qty INT, note VARCHAR(64))")).shapeChanges(List.of(unknown)).build();
        assertThatThrownBy(() -> deserialize(deserializer(), create))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                .hasMessageContaining("Table public.orders (read by Flink table default_catalog.default_database.orders) "
                        + "may have been replaced at the source by a CREATE TABLE the source cannot classify (CREATE OR "
                        + "REPLACE TABLE of a table the source holds no shape of")
                .hasMessageContaining("Restart the job without state");
        // an unknown ALTER that keeps every declared column goes on
        deserialize(deserializer(), change(null, ShapeChange.unknown(List.of(EXTRA), List.of(), "columns reordered")));
        assertThat(out).isEmpty();
    }
}
