package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.EmittedShapes;
import java.util.List;
import javax.annotation.Nullable;
import org.junit.jupiter.api.Test;

/** The shapes a stream holds before each statement: from its own events, or resumed from those before it opened. */
class HeldShapesTest {
    private static final TableId T = TableId.of("db", "db", "t");
    private static final RowShape.Column ID = RowShape.Column.of("id", "int", false);
    private static final RowShape.Column A = RowShape.Column.of("a", "varchar(10)", true);
    private static final RowShape.Column B = RowShape.Column.of("b", "int", true);
    private static final RowShape BEFORE = RowShape.of("db", "t", List.of(ID, A), List.of("id"));
    private static final RowShape WITH_B = RowShape.of("db", "t", List.of(ID, A, B), List.of("id"));

    private static List<ShapeChange> alter(HeldShapes held, String sql, @Nullable RowShape rows, RowShape after) {
        return held.classify(MySqlDdl.parse(sql, "db", SqlMode.DEFAULT).get(0), sql, rows, after);
    }

    private static HeldShapes resumed(@Nullable RowShape left, @Nullable RowShape rows) {
        EmittedShapes shapes = new EmittedShapes();
        shapes.restore(T, left, rows);
        HeldShapes held = new HeldShapes();
        held.resume(shapes);
        return held;
    }

    @Test
    void aResumedStreamClassifiesTheFirstStatementAsTheStreamBeforeItWould() {
        // the rows' shape before the position, no row read since
        assertThat(alter(resumed(null, BEFORE), "ALTER TABLE t ADD COLUMN b INT", null, WITH_B))
                .containsExactly(ShapeChange.columnAdded(B, 2));
        // the shape the last classified statement left
        assertThat(alter(resumed(WITH_B, null), "ALTER TABLE t DROP COLUMN b", null, BEFORE))
                .containsExactly(ShapeChange.columnRemoved(B));
        // rows since that statement carried another shape: unknown, as before the restart
        assertThat(alter(resumed(WITH_B, BEFORE), "ALTER TABLE t DROP COLUMN b", null, BEFORE)).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("carried another shape than that statement left"));
        // nothing resumed: nothing held
        assertThat(alter(resumed(null, null), "ALTER TABLE t ADD COLUMN b INT", null, WITH_B)).singleElement()
                .satisfies(c -> assertThat(c.reason()).contains("holds no shape of the table"));
    }

    @Test
    void aRowReadSinceTheStreamOpenedReplacesTheResumedRowsShape() {
        HeldShapes held = resumed(null, BEFORE);
        held.rowsRead(T); // a row whose table map disagreed with the catalogue: it carried no shape
        assertThat(alter(held, "ALTER TABLE t ADD COLUMN b INT", null, WITH_B)).singleElement()
                .satisfies(c -> assertThat(c.kind()).isEqualTo(ShapeChange.Kind.UNKNOWN));
        held = resumed(null, RowShape.of("db", "t", List.of(ID), List.of("id")));
        held.rowsRead(T);
        assertThat(alter(held, "ALTER TABLE t ADD COLUMN b INT", BEFORE, WITH_B))
                .containsExactly(ShapeChange.columnAdded(B, 2));
    }

    @Test
    void aResumedShapeIsNotExact() {
        // the same statement after a classified CREATE TABLE in the same run changes nothing ...
        HeldShapes held = new HeldShapes();
        String create = "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10))";
        assertThat(held.classify(MySqlDdl.parse(create, "db", SqlMode.DEFAULT).get(0), create, null, BEFORE))
                .containsExactly(ShapeChange.tableCreated(BEFORE));
        assertThat(alter(held, "ALTER TABLE t MODIFY a VARCHAR(10)", null, BEFORE))
                .containsExactly(ShapeChange.unchanged());
        // ... and is unknown against the same shape resumed, which may have come from rows
        assertThat(alter(resumed(BEFORE, null), "ALTER TABLE t MODIFY a VARCHAR(10)", null, BEFORE)).singleElement()
                .satisfies(c -> assertThat(c.kind()).isEqualTo(ShapeChange.Kind.UNKNOWN));
    }

    @Test
    void aStatementThatCannotChangeTheShapeLeavesTheOneHeld() {
        HeldShapes held = resumed(null, BEFORE);
        assertThat(held.unchanged(T, null)).isEqualTo(BEFORE);
        // and it stays held for the next statement
        assertThat(alter(held, "ALTER TABLE t ADD COLUMN b INT", null, WITH_B)).containsExactly(ShapeChange.columnAdded(B, 2));
        assertThat(resumed(WITH_B, BEFORE).unchanged(T, null)).as("rows and statement disagree").isNull();
        assertThat(new HeldShapes().unchanged(T, null)).isNull();
        assertThat(HeldShapes.leavesShape(MySqlDdl.parse("ALTER TABLE t ADD INDEX i (a)", "db", SqlMode.DEFAULT).get(0),
                "ALTER TABLE t ADD INDEX i (a)")).isTrue();
    }
}
