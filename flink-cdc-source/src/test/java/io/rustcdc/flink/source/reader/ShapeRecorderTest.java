package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.history.SchemaChange;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShapeRecorderTest {
    private static final TableId T = TableId.of("shop", "shop", "t");
    private static final RowShape SHAPE = RowShape.of("shop", "t", List.of(RowShape.Column.of("id", "int(11)", false)),
            List.of("id"));

    private static ChangeEvent ddl(DdlType type, RowShape shape) {
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.snapshot("mariadb", null))
                .after(SchemaChangeRows.of(T, type, type.name().toLowerCase() + " t")).shape(shape).build();
    }

    @Test
    void statementsAreRecordedByTheirTypeOncePerPosition() {
        SchemaHistory history = new SchemaHistory();
        ShapeRecorder recorder = new ShapeRecorder(history);
        assertThat(recorder.record(ddl(DdlType.CREATE_TABLE, SHAPE), "p1")).isEqualTo(1);
        assertThat(recorder.record(ddl(DdlType.CREATE_TABLE, SHAPE), "p1")).as("replayed after a restore: its version")
                .isEqualTo(1);
        assertThat(history.entries()).extracting(e -> e.change().kind()).containsExactly(SchemaChange.Kind.CREATE_TABLE);
        // the resulting shape could not be read: nothing known, no version
        assertThat(recorder.record(ddl(DdlType.ALTER_TABLE, null), "p2")).isZero();
        assertThat(history.entries()).hasSize(1);
        assertThat(recorder.record(ddl(DdlType.DROP_TABLE, null), "p3")).isEqualTo(2);
        assertThat(history.entries()).extracting(e -> e.change().kind())
                .containsExactly(SchemaChange.Kind.CREATE_TABLE, SchemaChange.Kind.DROP_TABLE);
        assertThat(history.latest(T)).isEmpty();
    }
}
