package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.StreamTestSupport.events;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.SchemaChangePolicy;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.history.ShapeDiff;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.SchemaChangeGates;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each class of schema change, made by DDL while the binlog stream runs, as the stream classifies it
 * from the statement, the shape it held and the catalogue; and the policy on the real events. Each
 * step is read before the next DDL runs, as a stream that keeps up reads it, except where two
 * statements in a row are the point.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlSchemaChangesITCase {
    private static final RowShape.Column A = RowShape.Column.of("a", "varchar(10)", true);

    @Test
    void everyClassDuringTheStream(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE sc (id INT PRIMARY KEY, a VARCHAR(10), b DECIMAL(12,4) NOT NULL)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "sc");
        MySqlPosition start = prepare(connector, table);
        TableFilter filter = TableFilter.of(List.of(db.name() + ".sc", db.name() + ".sc2"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            db.execute("INSERT INTO sc VALUES (1, 'x', 1)");
            assertThat(events(stream, 1).get(0).op()).isEqualTo(Op.INSERT); // its rows' shape is the one held

            ChangeEvent added = change(stream, db, "ALTER TABLE sc ADD COLUMN c TEXT", "INSERT INTO sc VALUES (2, 'x', 1, 'c')");
            assertThat(added.shapeChanges()).containsExactly(ShapeChange.columnAdded(RowShape.Column.of("c", "text", true), 3));
            assertThat(SchemaChangeRows.ddlType(added.after())).isEqualTo(DdlType.ALTER_TABLE);
            RowShape.Column id = added.shape().column("id").orElseThrow(); // int or int(11), as the server writes it

            ChangeEvent removed = change(stream, db, "ALTER TABLE sc DROP COLUMN a", "INSERT INTO sc VALUES (3, 1, 'c')");
            assertThat(removed.shapeChanges()).containsExactly(ShapeChange.columnRemoved(A));

            ChangeEvent renamed = change(stream, db, "ALTER TABLE sc RENAME COLUMN c TO d", "INSERT INTO sc VALUES (4, 1, 'd')");
            assertThat(renamed.shapeChanges()).containsExactly(
                    ShapeChange.columnRenamed(RowShape.Column.of("c", "text", true), RowShape.Column.of("d", "text", true)));

            ChangeEvent retyped = change(stream, db, "ALTER TABLE sc MODIFY b DECIMAL(14,4) NOT NULL",
                    "INSERT INTO sc VALUES (5, 1, 'd')");
            assertThat(retyped.shapeChanges()).containsExactly(ShapeChange.columnChanged(
                    RowShape.Column.of("b", "decimal(12,4)", false), RowShape.Column.of("b", "decimal(14,4)", false)));

            ChangeEvent nullable = change(stream, db, "ALTER TABLE sc MODIFY COLUMN b DECIMAL(14,4) NULL",
                    "INSERT INTO sc VALUES (6, 1, 'd')");
            assertThat(nullable.shapeChanges()).containsExactly(ShapeChange.columnChanged(
                    RowShape.Column.of("b", "decimal(14,4)", false), RowShape.Column.of("b", "decimal(14,4)", true)));

            // CHANGE names both names: a rename, and a type change of the renamed column
            ChangeEvent changed = change(stream, db, "ALTER TABLE sc CHANGE d e VARCHAR(20)",
                    "INSERT INTO sc VALUES (7, 1, 'e')");
            assertThat(changed.shapeChanges()).containsExactly(
                    ShapeChange.columnRenamed(RowShape.Column.of("d", "text", true), RowShape.Column.of("e", "text", true)),
                    ShapeChange.columnChanged(RowShape.Column.of("e", "text", true),
                            RowShape.Column.of("e", "varchar(20)", true)));

            // a key on a nullable column makes it NOT NULL
            ChangeEvent key = change(stream, db, "ALTER TABLE sc DROP PRIMARY KEY, ADD PRIMARY KEY (id, b)",
                    "INSERT INTO sc VALUES (8, 1, 'e')");
            assertThat(key.shapeChanges()).containsExactly(
                    ShapeChange.columnChanged(RowShape.Column.of("b", "decimal(14,4)", true),
                            RowShape.Column.of("b", "decimal(14,4)", false)),
                    ShapeChange.primaryKeyChanged(List.of("id"), List.of("id", "b")));

            // a drop and an add, which the statement tells from a rename
            ChangeEvent dropAdd = change(stream, db, "ALTER TABLE sc DROP COLUMN e, ADD COLUMN f VARCHAR(20) AFTER id",
                    "INSERT INTO sc VALUES (9, 'f', 1)");
            assertThat(dropAdd.shapeChanges()).containsExactly(
                    ShapeChange.columnRemoved(RowShape.Column.of("e", "varchar(20)", true)),
                    ShapeChange.columnAdded(RowShape.Column.of("f", "varchar(20)", true), 1));

            // a statement that cannot change the shape: classified as such, with the shape it leaves
            ChangeEvent neutral = change(stream, db,
                    "ALTER TABLE sc ADD INDEX fi (f), ALTER COLUMN f SET DEFAULT 'z', COMMENT 'indexed'",
                    "INSERT INTO sc VALUES (10, 'f', 1)");
            assertThat(neutral.shapeChanges()).containsExactly(ShapeChange.unchanged());
            assertThat(neutral.shape()).isEqualTo(dropAdd.shape());
            for (SchemaChangePolicy policy : SchemaChangePolicy.values()) {
                gate(policy, neutral);
            }
            assertThat(change(stream, db, "ALTER TABLE sc ENGINE=InnoDB", "INSERT INTO sc VALUES (20, 'f', 1)")
                    .shapeChanges()).containsExactly(ShapeChange.unchanged());

            // two statements before the stream reads the first: the catalogue shows the second's result
            db.execute("ALTER TABLE sc RENAME COLUMN f TO g", "INSERT INTO sc VALUES (11, 'g', 1)",
                    "ALTER TABLE sc RENAME COLUMN g TO h");
            List<ChangeEvent> events = events(stream, 3);
            assertThat(events).extracting(ChangeEvent::op).containsExactly(Op.SCHEMA_CHANGE, Op.INSERT, Op.SCHEMA_CHANGE);
            ChangeEvent unknown = events.get(0);
            assertThat(unknown.shapeChanges()).singleElement().satisfies(c -> {
                assertThat(c.kind()).isEqualTo(ShapeChange.Kind.UNKNOWN);
                assertThat(c.before()).extracting(RowShape.Column::name).containsExactly("f");
                assertThat(c.after()).extracting(RowShape.Column::name).containsExactly("h");
                assertThat(c.reason()).contains("the statement leaves the columns [id, g, b], the catalogue shows [id, h, b]");
            });
            // the row between carried no shape (its table map says g), so the second has nothing held before it
            assertThat(events.get(1).shape()).isNull();
            assertThat(events.get(2).shapeChanges()).singleElement().satisfies(c -> assertThat(c.reason())
                    .contains("holds no shape of the table from before the statement"));
            assertThatThrownBy(() -> gate(SchemaChangePolicy.FAIL_ON_UNKNOWN, unknown))
                    .isInstanceOf(CdcException.class)
                    .hasMessageContaining("Table " + table.qualifiedName() + " changed at the source")
                    .hasMessageContaining("unknown [f varchar(20) NULL] -> [h varchar(20) NULL]")
                    .hasMessageContaining("'schema-changes' = 'fail-on-unknown' refuses");
            gate(SchemaChangePolicy.EMIT, unknown);

            // a row that carries the catalogue's shape again: the next statement is classified against it
            db.execute("INSERT INTO sc VALUES (12, 'h', 1)");
            assertThat(events(stream, 1).get(0).shape()).isNotNull();
            ChangeEvent again = change(stream, db, "ALTER TABLE sc ADD COLUMN i INT NOT NULL DEFAULT 0 FIRST",
                    "INSERT INTO sc VALUES (0, 13, 'h', 1)");
            assertThat(again.shapeChanges()).containsExactly(ShapeChange.columnAddedFilled(
                    RowShape.Column.of("i", id.dataType(), false), 0, MySqlShapeChanges.FILLED));

            // the policy on the real events: additive-only takes the nullable added column, not the type change
            gate(SchemaChangePolicy.ADDITIVE_ONLY, added);
            gate(SchemaChangePolicy.FAIL_ON_UNKNOWN, renamed);
            assertThatThrownBy(() -> gate(SchemaChangePolicy.ADDITIVE_ONLY, retyped))
                    .hasMessageContaining("column_type_changed b decimal(12,4) NOT NULL -> b decimal(14,4) NOT NULL")
                    .hasMessageContaining("'schema-changes' = 'additive-only' refuses");
            assertThatThrownBy(() -> gate(SchemaChangePolicy.ADDITIVE_ONLY, again))
                    .hasMessageContaining("column_added i " + id.dataType() + " NOT NULL at 0");
            assertThatThrownBy(() -> gate(SchemaChangePolicy.FAIL, added))
                    .hasMessageContaining("column_added c text NULL at 3")
                    .hasMessageContaining("'additive-only', 'fail-on-unknown' or 'emit'");

            // every classified step applied to the shape before it gives the shape after it
            List<ChangeEvent> steps = List.of(added, removed, renamed, retyped, nullable, changed, key, dropAdd);
            for (int i = 1; i < steps.size(); i++) {
                assertThat(ShapeDiff.apply(steps.get(i - 1).shape(), steps.get(i).shapeChanges()))
                        .as("step %d", i).isEqualTo(steps.get(i).shape());
            }

            // DROP, then CREATE under the same name; a rename into a captured name
            db.execute("DROP TABLE sc", "CREATE TABLE sc (id BIGINT PRIMARY KEY, v TEXT)", "RENAME TABLE sc TO sc2");
            events = events(stream, 4);
            assertThat(events).extracting(e -> SchemaChangeRows.ddlType(e.after())).containsExactly(DdlType.DROP_TABLE,
                    DdlType.CREATE_TABLE, DdlType.DROP_TABLE, DdlType.CREATE_TABLE);
            assertThat(events.get(0).shapeChanges()).containsExactly(ShapeChange.tableDropped());
            // the catalogue no longer shows sc when the stream reads its CREATE: renamed since
            assertThat(events.get(1).shapeChanges()).singleElement().satisfies(c -> assertThat(c.reason())
                    .contains("the catalogue no longer shows the table"));
            assertThat(events.get(2).shapeChanges()).containsExactly(ShapeChange.tableDropped());
            assertThat(events.get(3).table().table()).isEqualTo("sc2");
            assertThat(events.get(3).shapeChanges()).extracting(ShapeChange::kind).containsExactly(ShapeChange.Kind.UNKNOWN);

            ChangeEvent created = change(stream, db, "CREATE TABLE sc (id BIGINT PRIMARY KEY, v TEXT)",
                    "INSERT INTO sc VALUES (1, 'new')");
            assertThat(created.shapeChanges()).singleElement().satisfies(c -> {
                assertThat(c.kind()).isEqualTo(ShapeChange.Kind.TABLE_CREATED);
                assertThat(c.after()).isEqualTo(created.shape().columns()).extracting(RowShape.Column::name)
                        .containsExactly("id", "v");
                assertThat(c.keyAfter()).containsExactly("id");
            });
            gate(SchemaChangePolicy.ADDITIVE_ONLY, created);
            // after a CREATE that declared every column the shape held is exact: redefined as it was, nothing changed
            ChangeEvent same = change(stream, db, "ALTER TABLE sc MODIFY v TEXT NULL", "INSERT INTO sc VALUES (3, 'same')");
            assertThat(same.shapeChanges()).containsExactly(ShapeChange.unchanged());
            gate(SchemaChangePolicy.FAIL, same);
            db.execute("DROP TABLE sc2");
            assertThat(events(stream, 1).get(0).shapeChanges()).containsExactly(ShapeChange.tableDropped());

            // a rename with the shape held: the old name dropped, the new one created with its columns
            db.execute("RENAME TABLE sc TO sc2", "INSERT INTO sc2 VALUES (2, 'moved')");
            events = events(stream, 3);
            assertThat(events).extracting(ChangeEvent::op).containsExactly(Op.SCHEMA_CHANGE, Op.SCHEMA_CHANGE, Op.INSERT);
            assertThat(events.get(0).shapeChanges()).containsExactly(ShapeChange.tableDropped());
            assertThat(events.get(1).table().table()).isEqualTo("sc2");
            assertThat(events.get(1).shapeChanges()).singleElement().satisfies(c -> {
                assertThat(c.kind()).isEqualTo(ShapeChange.Kind.TABLE_CREATED);
                assertThat(c.after()).isEqualTo(created.shape().columns());
            });
        }
    }

    @Test
    void whatTheStatementOrTheShapeHeldCannotTellIsUnknown(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE un (id INT PRIMARY KEY, a VARCHAR(10))", "CREATE TABLE model (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, TableId.of(db.name(), db.name(), "un"));
        TableFilter filter = TableFilter.of(List.of(db.name() + ".un", db.name() + ".un2", db.name() + ".un3"),
                List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            // no row of the table read since the stream opened: nothing held to compare with
            assertThat(reason(change(stream, db, "ALTER TABLE un ADD COLUMN b INT", "INSERT INTO un VALUES (1, 'a', 2)")))
                    .contains("holds no shape of the table from before the statement");
            // the shape held came with the rows: it may already be the conversion's result
            assertThat(reason(change(stream, db, "ALTER TABLE un CONVERT TO CHARACTER SET utf8mb4",
                    "INSERT INTO un VALUES (2, 'a', 2)"))).contains("read from the catalogue with the table's rows");
            assertThat(reason(change(stream, db, "ALTER TABLE un MODIFY a VARCHAR(20) FIRST",
                    "INSERT INTO un VALUES ('a', 3, 2)"))).contains("the order of the columns changed");
            assertThat(reason(change(stream, db, "CREATE TABLE un2 LIKE model", "INSERT INTO un2 VALUES (1)")))
                    .contains("does not list the table's columns");
            // even where it created the table: the statement cannot say
            assertThat(reason(change(stream, db, "CREATE TABLE IF NOT EXISTS un3 (id INT PRIMARY KEY)",
                    "INSERT INTO un3 VALUES (1)"))).contains("CREATE TABLE IF NOT EXISTS is logged when the table existed");
            if (db.server().isMariaDb()) {
                db.execute("INSERT INTO un2 VALUES (2)");
                assertThat(events(stream, 1).get(0).shape()).isNotNull(); // the shape held before the replace
                ChangeEvent replaced = change(stream, db, "CREATE OR REPLACE TABLE un2 (id BIGINT PRIMARY KEY)",
                        "INSERT INTO un2 VALUES (1)");
                assertThat(replaced.shapeChanges()).singleElement().satisfies(c -> {
                    assertThat(c.kind()).isEqualTo(ShapeChange.Kind.TABLE_REPLACED);
                    assertThat(c.after()).isEqualTo(replaced.shape().columns());
                    assertThat(c.reason()).isEqualTo("CREATE OR REPLACE TABLE: dropped and created again");
                });
                assertThatThrownBy(() -> gate(SchemaChangePolicy.ADDITIVE_ONLY, replaced))
                        .hasMessageContaining("table_replaced (CREATE OR REPLACE TABLE: dropped and created again)");
            }
        }
    }

    /**
     * A character set conversion of a captured column is a type change of its shape (the type carries the set
     * unless utf8mb4), lossy or not, by MODIFY and by CONVERT TO: 'fail' refuses it, 'emit' passes it. A collation
     * of the same set keeps the stored bytes: unchanged. The shape is exact (the table created while streaming).
     */
    @Test
    void aCharacterSetConversionIsATypeChange(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE other (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, TableId.of(db.name(), db.name(), "other"));
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            change(stream, db, "CREATE TABLE cs (id INT PRIMARY KEY, v VARCHAR(20), t TEXT CHARACTER SET latin1)",
                    "INSERT INTO cs VALUES (1, '\u00e9\uD83D\uDE00', '\u00df')");
            RowShape.Column v = RowShape.Column.of("v", "varchar(20)", true);
            RowShape.Column vLatin1 = RowShape.Column.of("v", "varchar(20) character set latin1", true);
            // lossy under a non-strict sql_mode: the emoji is stored as '?', with no row event
            ChangeEvent lossy = change(stream, db, "SET SESSION sql_mode = ''",
                    "ALTER TABLE cs MODIFY v VARCHAR(20) CHARACTER SET latin1", "INSERT INTO cs VALUES (2, 'x', 'y')");
            assertThat(lossy.shapeChanges()).containsExactly(ShapeChange.columnChanged(v, vLatin1));
            assertThat(db.queryValue("SELECT HEX(v) FROM cs WHERE id = 1")).isEqualTo("E93F");
            assertThatThrownBy(() -> gate(SchemaChangePolicy.FAIL, lossy)).hasMessageContaining(
                    "column_type_changed v varchar(20) NULL -> v varchar(20) character set latin1 NULL");
            gate(SchemaChangePolicy.EMIT, lossy);
            ChangeEvent wider = change(stream, db, "ALTER TABLE cs MODIFY v VARCHAR(20) CHARACTER SET utf8mb4",
                    "INSERT INTO cs VALUES (3, 'x', 'y')");
            assertThat(wider.shapeChanges()).containsExactly(ShapeChange.columnChanged(vLatin1, v));
            assertThatThrownBy(() -> gate(SchemaChangePolicy.FAIL, wider)).hasMessageContaining("column_type_changed v");
            gate(SchemaChangePolicy.EMIT, wider);
            // a collation of the same set: the stored bytes stay
            String bytes = db.queryValue("SELECT GROUP_CONCAT(HEX(v) ORDER BY id) FROM cs");
            ChangeEvent collated = change(stream, db, "ALTER TABLE cs MODIFY v VARCHAR(20) COLLATE utf8mb4_bin",
                    "INSERT INTO cs VALUES (4, 'x', 'y')");
            assertThat(collated.shapeChanges()).containsExactly(ShapeChange.unchanged());
            assertThat(db.queryValue("SELECT GROUP_CONCAT(HEX(v) ORDER BY id) FROM cs WHERE id < 4")).isEqualTo(bytes);
            gate(SchemaChangePolicy.FAIL, collated);
            // CONVERT TO: t from latin1 (a TEXT may become a MEDIUMTEXT), v stays utf8mb4; and back, lossy
            ChangeEvent converted = change(stream, db, "ALTER TABLE cs CONVERT TO CHARACTER SET utf8mb4",
                    "INSERT INTO cs VALUES (5, 'x', 'y')");
            RowShape.Column t = converted.shape().column("t").orElseThrow();
            assertThat(t.dataType()).isIn("text", "mediumtext");
            assertThat(converted.shapeChanges()).containsExactly(
                    ShapeChange.columnChanged(RowShape.Column.of("t", "text character set latin1", true), t));
            assertThatThrownBy(() -> gate(SchemaChangePolicy.FAIL, converted)).hasMessageContaining("column_type_changed t");
            gate(SchemaChangePolicy.EMIT, converted);
            ChangeEvent back = change(stream, db, "SET SESSION sql_mode = ''", "ALTER TABLE cs CONVERT TO CHARACTER SET "
                    + "latin1", "INSERT INTO cs VALUES (6, 'x', 'y')");
            assertThat(back.shapeChanges()).extracting(c -> c.after().get(0).dataType()).containsExactly(
                    "varchar(20) character set latin1", back.shape().column("t").orElseThrow().dataType());
            assertThat(back.shapeChanges()).extracting(ShapeChange::kind).containsOnly(ShapeChange.Kind.COLUMN_TYPE_CHANGED);
            assertThatThrownBy(() -> gate(SchemaChangePolicy.FAIL, back)).hasMessageContaining("column_type_changed v");
            gate(SchemaChangePolicy.FAIL_ON_UNKNOWN, back);
        }
    }

    /**
     * Random DDL against the real server, read at once or several statements late: every statement's
     * classification that has no UNKNOWN, applied to the table's true shape before it (read by the test
     * right after each statement), gives the true shape after it. Seed printed; replay with
     * {@code -Drustcdc.mysqlddl.seed=N}.
     */
    @Test
    void randomStatementsAreClassifiedExactlyOrUnknown(MySqlDatabase db) throws Exception {
        long seed = Long.getLong("rustcdc.mysqlddl.seed", System.nanoTime());
        System.out.println("MySqlSchemaChangesITCase random DDL seed " + seed + " (-Drustcdc.mysqlddl.seed=" + seed + ")");
        Random random = new Random(seed);
        db.execute("CREATE TABLE r (id INT PRIMARY KEY, c0 VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, TableId.of(db.name(), db.name(), "r"));
        String[] types = {"INT", "BIGINT", "VARCHAR(10)", "VARCHAR(20)", "TEXT", "DECIMAL(12,4)"};
        List<String> columns = new ArrayList<>(List.of("c0"));
        List<RowShape> truth = new ArrayList<>();
        List<ChangeEvent> changes = new ArrayList<>();
        int unread = 0;
        int next = 1;
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start,
                TableFilter.of(List.of(db.name() + ".r"), List.of()));
                Connection catalogue = db.admin()) {
            truth.add(MySqlShapes.read(catalogue, db.name(), "r"));
            db.execute("INSERT INTO r (id) VALUES (-1)"); // a shape held before the first statement
            unread++;
            for (int step = 0; step < 40; step++) {
                String some = columns.get(random.nextInt(columns.size()));
                String type = types[random.nextInt(types.length)];
                String name = "c" + next++;
                String sql;
                switch (columns.size() < 2 ? 0 : random.nextInt(6)) {
                    case 0: {
                        String[] places = {"", " FIRST", " AFTER " + some};
                        sql = "ADD COLUMN " + name + " " + type + places[random.nextInt(places.length)];
                        columns.add(name);
                        break;
                    }
                    case 1:
                        sql = "DROP COLUMN " + some;
                        columns.remove(some);
                        break;
                    case 2:
                        sql = "RENAME COLUMN " + some + " TO " + name;
                        columns.set(columns.indexOf(some), name);
                        break;
                    case 3:
                        sql = "MODIFY " + some + " " + type;
                        break;
                    case 4:
                        sql = "CHANGE " + some + " " + name + " " + type;
                        columns.set(columns.indexOf(some), name);
                        break;
                    default:
                        sql = "DROP COLUMN " + some + ", ADD COLUMN " + name + " " + type;
                        columns.set(columns.indexOf(some), name);
                        break;
                }
                db.execute("ALTER TABLE r " + sql);
                truth.add(MySqlShapes.read(catalogue, db.name(), "r"));
                unread++;
                if (random.nextBoolean()) {
                    db.execute("INSERT INTO r (id) VALUES (" + step + ")");
                    unread++;
                }
                if (random.nextInt(3) > 0) { // else the stream reads this statement after the next ones
                    events(stream, unread).stream().filter(e -> e.op() == Op.SCHEMA_CHANGE).forEach(changes::add);
                    unread = 0;
                }
            }
            events(stream, unread).stream().filter(e -> e.op() == Op.SCHEMA_CHANGE).forEach(changes::add);
        }
        assertThat(changes).hasSize(truth.size() - 1);
        int classified = 0;
        for (int i = 0; i < changes.size(); i++) {
            List<ShapeChange> c = changes.get(i).shapeChanges();
            if (c.stream().noneMatch(x -> x.kind() == ShapeChange.Kind.UNKNOWN)) {
                assertThat(ShapeDiff.apply(truth.get(i), c)).as("seed %d, %s", seed,
                        changes.get(i).after().get("statement")).isEqualTo(truth.get(i + 1));
                classified++;
            }
        }
        System.out.println("seed " + seed + ": " + classified + " of " + changes.size() + " statements classified");
        assertThat(classified).as("seed %d: statements classified", seed).isPositive();
    }

    private static MySqlPosition prepare(MySqlConnector connector, TableId table) {
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return session.prepareStream(List.of(table), false);
        }
    }

    private static String reason(ChangeEvent e) {
        assertThat(e.shapeChanges()).extracting(ShapeChange::kind).containsExactly(ShapeChange.Kind.UNKNOWN);
        return e.shapeChanges().get(0).reason();
    }

    /** Runs {@code statements} and returns the schema change event they cause, before the insert that follows. */
    private static ChangeEvent change(ChangeStream<MySqlPosition> stream, MySqlDatabase db, String... statements)
            throws Exception {
        db.execute(statements);
        List<ChangeEvent> events = events(stream, 2);
        assertThat(events).extracting(ChangeEvent::op).as(String.join("; ", statements))
                .containsExactly(Op.SCHEMA_CHANGE, Op.INSERT);
        if (events.get(0).shapeChanges().stream().anyMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN)) {
            // the catalogue read with the statement may already hold later statements: no shape rather than a wrong one
            assertThat(events.get(0).shape()).as("an unknown change's shape").isNull();
        } else {
            assertThat(events.get(0).shape()).isEqualTo(events.get(1).shape());
        }
        return events.get(0);
    }

    private static void gate(SchemaChangePolicy policy, ChangeEvent event) throws Exception {
        SchemaChangeGates.apply(policy, event);
    }
}
