package io.rustcdc.flink.source.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.List;
import javax.annotation.Nullable;
import org.junit.jupiter.api.Test;

/** What a stream's events said of each table's shape: the last classified change's, and the rows' since. */
class EmittedShapesTest {
    private static final TableId T = TableId.of("shop", "shop", "t");
    private static final RowShape.Column ID = RowShape.Column.of("id", "int", false);
    private static final RowShape.Column NOTE = RowShape.Column.of("note", "text", true);
    private static final RowShape A = RowShape.of("shop", "t", List.of(ID), List.of("id"));
    private static final RowShape B = RowShape.of("shop", "t", List.of(ID, NOTE), List.of("id"));

    private static ChangeEvent change(@Nullable RowShape after, List<ShapeChange> changes) {
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.stream("test", new TestPosition(1), null))
                .after(SchemaChangeRows.of(T, DdlType.ALTER_TABLE, "ALTER TABLE t ...")).shape(after)
                .shapeChanges(changes).build();
    }

    private static ChangeEvent row(@Nullable RowShape shape) {
        return ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("test", new TestPosition(2), null)).shape(shape)
                .build();
    }

    @Test
    void aClassifiedChangeLeavesItsShapeAndTheRowsSinceTheirs() {
        EmittedShapes shapes = new EmittedShapes();
        shapes.record(row(A));
        assertThat(shapes.rows(T)).isEqualTo(A);
        assertThat(shapes.leftByChange(T)).isNull();

        shapes.record(change(B, List.of(ShapeChange.columnAdded(NOTE, 1))));
        assertThat(shapes.leftByChange(T)).isEqualTo(B);
        assertThat(shapes.rows(T)).as("a statement ends the rows' shape").isNull();

        shapes.record(row(B));
        assertThat(shapes.rows(T)).isEqualTo(B);
        shapes.record(row(null));
        assertThat(shapes.rows(T)).as("the last row carried none").isNull();
        assertThat(shapes.leftByChange(T)).isEqualTo(B);

        shapes.record(change(B, List.of(ShapeChange.unchanged())));
        assertThat(shapes.leftByChange(T)).as("classified as changing nothing").isEqualTo(B);
    }

    @Test
    void anUnknownOrUnclassifiedChangeOrAShapeNotReadLeavesNothing() {
        for (ChangeEvent e : List.of(change(B, List.of(ShapeChange.unknown(List.of(), List.of(NOTE), "why"))),
                change(B, List.of()), change(null, List.of(ShapeChange.columnAdded(NOTE, 1))),
                change(null, List.of(ShapeChange.tableDropped())))) {
            EmittedShapes shapes = new EmittedShapes();
            shapes.record(change(A, List.of(ShapeChange.tableCreated(A))));
            shapes.record(row(A));
            shapes.record(e);
            assertThat(shapes.leftByChange(T)).as(e.shapeChanges().toString()).isNull();
            assertThat(shapes.rows(T)).isNull();
            assertThat(shapes.tables()).isEmpty();
        }
    }

    @Test
    void otherEventsChangeNothingAndACopyIsIndependent() {
        EmittedShapes shapes = new EmittedShapes();
        shapes.record(change(A, List.of(ShapeChange.tableCreated(A))));
        shapes.record(row(A));
        EmittedShapes copy = shapes.copy();
        shapes.record(ChangeEvent.builder(Op.TRUNCATE, T, SourceInfo.stream("test", new TestPosition(3), null)).build());
        assertThat(shapes).isEqualTo(copy);
        shapes.record(change(B, List.of(ShapeChange.columnAdded(NOTE, 1))));
        assertThat(copy.leftByChange(T)).isEqualTo(A);
        assertThat(copy.rows(T)).isEqualTo(A);
        assertThat(shapes).isNotEqualTo(copy);
        EmittedShapes restored = new EmittedShapes();
        restored.restore(T, A, A);
        assertThat(restored).isEqualTo(copy);
    }
}
