package io.rustcdc.flink.source.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
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
        assertThat(SchemaChangeRows.ddlType(Row.of(SchemaChangeRows.TYPE, null, "public", "orders", null))).isNull();
        assertThatThrownBy(() -> SchemaChangeRows.ddlType(Row.of(SchemaChangeRows.TYPE, "RENAME_TABLE", "public", "orders",
                null))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'RENAME_TABLE'").hasMessageContaining("CREATE_TABLE, ALTER_TABLE, DROP_TABLE");
    }
}
