package io.rustcdc.flink.source.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RowShapeTest {

    @Test
    void publicVectorOrders() {
        RowShape shape = RowShape.of("public", "orders",
                List.of(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("amount", "numeric(12,4)", false)),
                List.of("id"));
        assertThat(shape.id()).isEqualTo("b624610ff39e262dce3871616498fde0548b197edb6459794bb3754d474a515a");
    }

    @Test
    void publicVectorClientes() {
        RowShape shape = RowShape.of("public", "clientes",
                List.of(RowShape.Column.of("id", "integer", false),
                        RowShape.Column.of("nome", "text", true),
                        RowShape.Column.of("email", "character varying(64)", true)),
                List.of("id"));
        assertThat(shape.id()).isEqualTo("57dfe0321b93e3c87cb29a6fe7ef8cf2c8f0e72c2db01d583657001ad76925d4");
    }

    @Test
    void idNamesTheLayoutNotThePointInHistory() {
        RowShape a = shape(RowShape.Column.of("id", "bigint", false));
        RowShape b = shape(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("c", "text", true));
        RowShape aAgain = shape(RowShape.Column.of("id", "bigint", false));
        assertThat(b.id()).isNotEqualTo(a.id());
        assertThat(aAgain.id()).isEqualTo(a.id());
        assertThat(aAgain).isEqualTo(a);
    }

    @Test
    void everyPartChangesTheId() {
        RowShape base = shape(RowShape.Column.of("id", "bigint", false));
        assertThat(RowShape.of("other", "orders", base.columns(), List.of("id")).id()).isNotEqualTo(base.id());
        assertThat(RowShape.of("public", "other", base.columns(), List.of("id")).id()).isNotEqualTo(base.id());
        assertThat(shape(RowShape.Column.of("id", "integer", false)).id()).isNotEqualTo(base.id());
        assertThat(shape(RowShape.Column.of("id", "bigint", true)).id()).isNotEqualTo(base.id());
        assertThat(RowShape.of("public", "orders", base.columns(), List.of()).id()).isNotEqualTo(base.id());
    }

    @Test
    void lengthPrefixesKeepAdjacentStringsApart() {
        RowShape one = RowShape.of("ab", "c", List.of(), List.of());
        RowShape two = RowShape.of("a", "bc", List.of(), List.of());
        assertThat(one.id()).isNotEqualTo(two.id());
    }

    @Test
    void refusesRepeatedColumnsAndForeignKeyColumns() {
        assertThatThrownBy(() -> shape(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("id", "text", true)))
                .hasMessageContaining("id appears twice");
        assertThatThrownBy(() -> RowShape.of("public", "orders", List.of(RowShape.Column.of("a", "int", false)), List.of("id")))
                .hasMessageContaining("Primary key column id");
    }

    @Test
    void projectionKeepsOrderAndDropsKeyColumnsItRemoves() {
        RowShape full = shape(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("a", "text", true),
                RowShape.Column.of("b", "text", true));
        RowShape projected = full.project(Set.of("b", "a"));
        assertThat(projected.columns()).extracting(RowShape.Column::name).containsExactly("a", "b");
        assertThat(projected.primaryKey()).isEmpty();
        assertThat(projected.id()).isNotEqualTo(full.id());
    }

    private static RowShape shape(RowShape.Column... columns) {
        return RowShape.of("public", "orders", List.of(columns), List.of("id"));
    }
}
