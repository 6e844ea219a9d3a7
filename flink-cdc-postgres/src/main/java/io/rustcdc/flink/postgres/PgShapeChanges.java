package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.history.ShapeDiff;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Classifies the change between two RELATION messages of one relation. pgoutput names columns but
 * carries no identity, so columns are matched by attribute number where the catalogue confirmed both
 * messages' numbers (a rename is then told from a drop and an add: numbers are never reused within a
 * table), and by name otherwise, where a column gone while another is added is UNKNOWN.
 */
final class PgShapeChanges {
    private PgShapeChanges() {}

    static List<ShapeChange> classify(PgRelation before, PgRelation after) {
        if (before.attributeNumbers == null || after.attributeNumbers == null) {
            return ShapeDiff.classify(before.shape, after.shape);
        }
        Map<Integer, String> afterByNumber = new HashMap<>();
        List<RowShape.Column> afterColumns = after.shape.columns();
        for (int i = 0; i < afterColumns.size(); i++) {
            afterByNumber.put(after.attributeNumbers[i], afterColumns.get(i).name());
        }
        Map<String, String> same = new HashMap<>();
        List<RowShape.Column> beforeColumns = before.shape.columns();
        for (int i = 0; i < beforeColumns.size(); i++) {
            String now = afterByNumber.get(before.attributeNumbers[i]);
            if (now != null) {
                same.put(beforeColumns.get(i).name(), now);
            }
        }
        return ShapeDiff.classify(before.shape, after.shape, same);
    }
}
