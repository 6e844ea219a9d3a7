package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.source.model.RowShape;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Shapes read from the catalogue of a real server: declared types verbatim, nullability, key order, stable ids. */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlShapesITCase {

    @Test
    void declaredTypesNullabilityAndKeyOrderAreTheCataloguesOwn(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE shaped (a INT UNSIGNED NOT NULL, b VARCHAR(10) NOT NULL, price DECIMAL(65,30), "
                + "state ENUM('new','paid'), flags SET('x','y'), note TEXT, at TIMESTAMP(6) NULL, PRIMARY KEY (b, a))");
        try (Connection c = db.connect()) {
            RowShape shape = MySqlShapes.read(c, db.name(), "shaped");
            assertThat(shape.schema()).isEqualTo(db.name());
            assertThat(shape.columns()).extracting(RowShape.Column::name)
                    .containsExactly("a", "b", "price", "state", "flags", "note", "at");
            assertThat(shape.columns()).extracting(RowShape.Column::dataType).containsExactly(
                    db.server().isMariaDb() ? "int(10) unsigned" : "int unsigned", "varchar(10)", "decimal(65,30)",
                    "enum('new','paid')", "set('x','y')", "text", "timestamp(6)");
            assertThat(shape.columns()).extracting(RowShape.Column::nullable)
                    .containsExactly(false, false, true, true, true, true, true);
            assertThat(shape.primaryKey()).as("in key order, not column order").containsExactly("b", "a");
            assertThat(MySqlShapes.read(c, db.name(), "shaped").id()).as("stable").isEqualTo(shape.id());

            db.execute("ALTER TABLE shaped ADD COLUMN extra BIGINT");
            RowShape altered = MySqlShapes.read(c, db.name(), "shaped");
            assertThat(altered.id()).isNotEqualTo(shape.id());
            db.execute("ALTER TABLE shaped DROP COLUMN extra");
            assertThat(MySqlShapes.read(c, db.name(), "shaped").id()).as("A -> B -> A has A's id").isEqualTo(shape.id());
        }
    }

    @Test
    void aTableWithoutKeyHasAnEmptyKeyAndAMissingTableIsNamed(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE keyless (v INT)");
        try (Connection c = db.connect()) {
            assertThat(MySqlShapes.read(c, db.name(), "keyless").primaryKey()).isEqualTo(List.of());
            assertThatThrownBy(() -> MySqlShapes.read(c, db.name(), "missing"))
                    .hasMessageContaining("Table " + db.name() + ".missing does not exist, or the user may not read it")
                    .hasMessageContaining("GRANT SELECT ON " + db.name() + ".missing");
        }
    }
}
