package io.rustcdc.flink.source.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A schema change row carries its kind as the text of the contract and is read back typed. */
class SchemaChangeRowsTest {
    private static final TableId T = TableId.of("shop", "public", "orders");

    @Test
    void everyKindRoundTripsThroughItsText() {
        for (DdlType type : DdlType.values()) {
            Row row = SchemaChangeRows.of(T, type, "statement");
            assertThat(row.get("ddl_type")).isEqualTo(type.name());
            assertThat(SchemaChangeRows.ddlType(row)).isEqualTo(type);
        }
        assertThat(Arrays.stream(DdlType.values()).map(Enum::name))
                .containsExactly("CREATE_TABLE", "ALTER_TABLE", "DROP_TABLE");
    }

    @Test
    void aRowWithoutAKindHasNoneAndAnUnknownKindFails() {
        assertThat(SchemaChangeRows.ddlType(null)).isNull();
        assertThat(SchemaChangeRows.ddlType(Row.of(SchemaChangeRows.TYPE, null, "public", "orders", null, null)))
                .isNull();
        assertThatThrownBy(() -> SchemaChangeRows.ddlType(Row.of(SchemaChangeRows.TYPE, "RENAME_TABLE", "public", "orders",
                null, null))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'RENAME_TABLE'").hasMessageContaining("CREATE_TABLE, ALTER_TABLE, DROP_TABLE");
    }

    @Test
    void theSourceSetsTheHistoryVersionAndKeepsEverythingElse() {
        ChangeEvent event = ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.snapshot("postgres", null))
                .after(SchemaChangeRows.of(T, DdlType.ALTER_TABLE, "ALTER TABLE orders ADD note text"))
                .shapeChanges(List.of(ShapeChange.unknown(List.of(), List.of(), "why"))).build();
        assertThat(SchemaChangeRows.historyVersion(event.after())).as("a connector's own event").isNull();
        ChangeEvent versioned = SchemaChangeRows.withHistoryVersion(event, 17);
        assertThat(SchemaChangeRows.historyVersion(versioned.after())).isEqualTo(17L);
        assertThat(versioned.after().get("statement")).isEqualTo("ALTER TABLE orders ADD note text");
        assertThat(SchemaChangeRows.ddlType(versioned.after())).isEqualTo(DdlType.ALTER_TABLE);
        assertThat(versioned.shapeChanges()).isEqualTo(event.shapeChanges());
        assertThat(versioned.source()).isEqualTo(event.source());
        // a row of the four columns written before the version existed (restored state) has none, and gains one
        RowType old = RowType.of(List.of("ddl_type", "schema", "table", "statement"), List.of(ValueType.of(ValueKind.TEXT),
                ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT)));
        ChangeEvent before = ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.snapshot("postgres", null))
                .after(Row.of(old, "DROP_TABLE", "public", "orders", null)).build();
        assertThat(SchemaChangeRows.historyVersion(before.after())).isNull();
        assertThat(SchemaChangeRows.historyVersion(SchemaChangeRows.withHistoryVersion(before, 3).after())).isEqualTo(3L);
        assertThatThrownBy(() -> SchemaChangeRows.withHistoryVersion(ChangeEvent.builder(Op.INSERT, T,
                SourceInfo.snapshot("postgres", null)).build(), 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
