package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.history.ShapeDiff;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Classification from a statement and the shapes before and after it (as the stream holds and reads them). */
class MySqlShapeChangesTest {
    private static final RowShape.Column ID = RowShape.Column.of("id", "int", false);
    private static final RowShape.Column A = RowShape.Column.of("a", "varchar(10)", true);
    private static final RowShape BEFORE = shape(List.of(ID, A), "id");

    private static RowShape shape(List<RowShape.Column> columns, String... key) {
        return RowShape.of("db", "t", columns, List.of(key));
    }

    private static List<ShapeChange> altered(RowShape before, boolean exact, RowShape after, String sql) {
        List<ShapeChange> changes = MySqlShapeChanges.altered(before, exact, after, MySqlColumnDdl.alter(sql, SqlMode.DEFAULT));
        if (changes.stream().noneMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN)) {
            assertThat(ShapeDiff.apply(before, changes)).as("applied to the shape before").isEqualTo(after);
        }
        return changes;
    }

    @Test
    void theStatementTellsARenameFromADropAndAnAdd() {
        RowShape renamed = shape(List.of(ID, RowShape.Column.of("b", "varchar(10)", true)), "id");
        assertThat(altered(BEFORE, false, renamed, "ALTER TABLE t RENAME COLUMN a TO b"))
                .containsExactly(ShapeChange.columnRenamed(A, renamed.columns().get(1)));
        assertThat(altered(BEFORE, false, renamed, "ALTER TABLE t DROP COLUMN a, ADD COLUMN b VARCHAR(10)"))
                .containsExactly(ShapeChange.columnRemoved(A), ShapeChange.columnAdded(renamed.columns().get(1), 1));
        RowShape changed = shape(List.of(ID, RowShape.Column.of("b", "varchar(20)", false)), "id");
        assertThat(altered(BEFORE, false, changed, "ALTER TABLE t CHANGE a b VARCHAR(20) NOT NULL")).containsExactly(
                ShapeChange.columnRenamed(A, renamed.columns().get(1)),
                ShapeChange.columnChanged(renamed.columns().get(1), changed.columns().get(1)));
    }

    /** A column added with a DEFAULT other than NULL, AUTO_INCREMENT or generated fills the rows before it. */
    @Test
    void aColumnAddedThatFillsTheRowsBeforeItIsNotAdditive() {
        RowShape.Column n = RowShape.Column.of("n", "int", true);
        RowShape added = shape(List.of(ID, A, n), "id");
        for (String definition : List.of("INT DEFAULT 5", "INT DEFAULT (1 + 1)", "INT AS (id * 2)",
                "INT GENERATED ALWAYS AS (id) STORED", "INT NULL DEFAULT 0 COMMENT 'x'")) {
            assertThat(altered(BEFORE, true, added, "ALTER TABLE t ADD COLUMN n " + definition)).singleElement()
                    .satisfies(c -> {
                        assertThat(c.kind()).isEqualTo(ShapeChange.Kind.COLUMN_ADDED);
                        assertThat(c.reason()).contains("the rows before it read its default");
                        assertThat(c.additive()).as(definition).isFalse();
                    });
        }
        for (String definition : List.of("INT", "INT DEFAULT NULL", "INT NULL COMMENT 'DEFAULT 5'")) {
            assertThat(altered(BEFORE, true, added, "ALTER TABLE t ADD COLUMN n " + definition)).as(definition)
                    .containsExactly(ShapeChange.columnAdded(n, 2));
        }
    }

    @Test
    void namesAreTheServersCaseInsensitiveOnes() {
        RowShape wider = shape(List.of(ID, RowShape.Column.of("a", "varchar(20)", true)), "id");
        assertThat(altered(BEFORE, false, wider, "ALTER TABLE t MODIFY A VARCHAR(20) AFTER ID"))
                .containsExactly(ShapeChange.columnChanged(A, wider.columns().get(1)));
        RowShape upper = shape(List.of(ID, RowShape.Column.of("A", "varchar(10)", true)), "id");
        assertThat(altered(BEFORE, false, upper, "ALTER TABLE t CHANGE a A VARCHAR(10)"))
                .containsExactly(ShapeChange.columnRenamed(A, upper.columns().get(1)));
    }

    @Test
    void aKeyAddedMakesItsColumnsNotNull() {
        RowShape noKey = shape(List.of(RowShape.Column.of("id", "int", true), A));
        RowShape keyed = shape(List.of(ID, A), "id");
        assertThat(altered(noKey, true, keyed, "ALTER TABLE t ADD PRIMARY KEY (id)")).containsExactly(
                ShapeChange.columnChanged(noKey.columns().get(0), ID), ShapeChange.primaryKeyChanged(List.of(), List.of("id")));
    }

    @Test
    void whatTheCatalogueDoesNotShowAsTheStatementDidIsUnknown() {
        // the column added, then dropped again before the stream read the ADD
        assertThat(altered(BEFORE, true, BEFORE, "ALTER TABLE t ADD COLUMN c INT")).singleElement()
                .satisfies(c -> assertThat(c.kind()).isEqualTo(ShapeChange.Kind.UNKNOWN))
                .satisfies(c -> assertThat(c.reason()).contains("leaves the columns [id, a, c], the catalogue shows [id, a]"));
        // the type declared is not the catalogue's: changed again since
        RowShape wider = shape(List.of(ID, RowShape.Column.of("a", "varchar(30)", true)), "id");
        assertThat(altered(BEFORE, true, wider, "ALTER TABLE t MODIFY a VARCHAR(20)")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("declares column a varchar(20) NULL"));
        // a column the statement does not name changed
        RowShape other = shape(List.of(RowShape.Column.of("id", "bigint", false), A, RowShape.Column.of("c", "int", true)), "id");
        assertThat(altered(BEFORE, true, other, "ALTER TABLE t ADD COLUMN c INT")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("column id, which the statement does not define"));
        // the shape from the rows may already be the statement's result
        assertThat(altered(wider, false, wider, "ALTER TABLE t MODIFY a VARCHAR(30)")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("read from the catalogue with the table's rows"));
        assertThat(altered(wider, true, wider, "ALTER TABLE t MODIFY a VARCHAR(30)")).containsExactly(ShapeChange.unchanged());
        // nothing held, or a clause not read
        assertThat(MySqlShapeChanges.altered(null, false, BEFORE,
                MySqlColumnDdl.alter("ALTER TABLE t ADD c INT", SqlMode.DEFAULT)))
                .singleElement().satisfies(c -> assertThat(c.reason()).contains("holds no shape of the table"));
        assertThat(altered(BEFORE, true, BEFORE, "ALTER TABLE t CONVERT TO CHARACTER SET binary")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("does not read the clause 'CONVERT TO"));
        assertThat(altered(BEFORE, true, BEFORE, "ALTER TABLE t CONVERT TO CHARACTER SET DEFAULT")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("does not read the clause 'CONVERT TO"));
    }

    /** The shape's type carries a text column's set unless utf8mb4 (MySqlShapes): a conversion is a type change. */
    @Test
    void aCharacterSetConversionIsATypeChange() {
        RowShape.Column latin1 = RowShape.Column.of("a", "varchar(10) character set latin1", true);
        RowShape converted = shape(List.of(ID, latin1), "id");
        for (String sql : new String[] {"ALTER TABLE t MODIFY a VARCHAR(10) CHARACTER SET latin1",
            "ALTER TABLE t MODIFY a VARCHAR(10) CHARSET latin1 COLLATE latin1_bin", "ALTER TABLE t MODIFY a VARCHAR(10) "
                + "COLLATE latin1_german1_ci", "ALTER TABLE t CHANGE a a VARCHAR(10) ASCII", "ALTER TABLE t MODIFY a VARCHAR(10)",
            "ALTER TABLE t CONVERT TO CHARACTER SET latin1", "ALTER TABLE t CONVERT TO CHARSET latin1 COLLATE latin1_bin"}) {
            assertThat(altered(BEFORE, true, converted, sql)).as(sql).containsExactly(ShapeChange.columnChanged(A, latin1));
            assertThat(altered(converted, true, BEFORE, sql.replace("latin1", "utf8mb4").replace("ASCII", "")))
                    .as(sql).containsExactly(ShapeChange.columnChanged(latin1, A));
        }
        // CONVERT TO makes a TEXT a MEDIUMTEXT where the new set needs more bytes; other columns stay
        RowShape text = shape(List.of(ID, RowShape.Column.of("t", "text character set latin1", true)), "id");
        RowShape medium = shape(List.of(ID, RowShape.Column.of("t", "mediumtext", true)), "id");
        assertThat(altered(text, true, medium, "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"))
                .containsExactly(ShapeChange.columnChanged(text.columns().get(1), medium.columns().get(1)));
        // a collation of the same set keeps the text: no change of the shape
        assertThat(altered(converted, true, converted, "ALTER TABLE t MODIFY a VARCHAR(10) COLLATE latin1_bin"))
                .containsExactly(ShapeChange.unchanged());
        // the catalogue shows another set than the statement's: changed again since
        assertThat(altered(BEFORE, true, BEFORE, "ALTER TABLE t MODIFY a VARCHAR(10) CHARACTER SET latin1")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("declares column a varchar(10) character set latin1 NULL"));
        assertThat(altered(BEFORE, true, BEFORE, "ALTER TABLE t CONVERT TO CHARACTER SET latin1")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("column a, which the statement does not define"));
        // a shape from the rows may already be the conversion's result
        assertThat(altered(converted, false, converted, "ALTER TABLE t CONVERT TO CHARACTER SET latin1")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("read from the catalogue with the table's rows"));
        assertThat(altered(BEFORE, false, converted, "ALTER TABLE t CONVERT TO CHARACTER SET latin1"))
                .containsExactly(ShapeChange.columnChanged(A, latin1));
        RowShape number = shape(List.of(RowShape.Column.of("id", "bigint", false), A), "id");
        assertThat(altered(BEFORE, true, number, "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4")).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("column id, which the statement does not define"));
        assertThat(MySqlShapeChanges.created(converted, MySqlColumnDdl.create(
                "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10) CHARACTER SET latin1)", SqlMode.DEFAULT)))
                .containsExactly(ShapeChange.tableCreated(converted));
    }

    @Test
    void aMovedColumnIsUnknownAsTheFrameworkHasIt() {
        RowShape moved = shape(List.of(A, ID), "id");
        assertThat(altered(BEFORE, true, moved, "ALTER TABLE t MODIFY a VARCHAR(10) FIRST")).extracting(ShapeChange::kind)
                .containsExactly(ShapeChange.Kind.UNKNOWN);
    }

    @Test
    void aCreatedTableIsCreatedOnlyWithTheColumnsItsStatementLists() {
        assertThat(MySqlShapeChanges.created(BEFORE,
                MySqlColumnDdl.create("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10))", SqlMode.DEFAULT)))
                .containsExactly(ShapeChange.tableCreated(BEFORE));
        assertThat(MySqlShapeChanges.created(BEFORE,
                MySqlColumnDdl.create("CREATE TABLE t (id INT PRIMARY KEY)", SqlMode.DEFAULT)))
                .extracting(ShapeChange::kind).containsExactly(ShapeChange.Kind.UNKNOWN);
        assertThat(MySqlShapeChanges.created(BEFORE, MySqlColumnDdl.create("CREATE TABLE t LIKE u", SqlMode.DEFAULT)))
                .extracting(ShapeChange::kind).containsExactly(ShapeChange.Kind.UNKNOWN);
    }
}
