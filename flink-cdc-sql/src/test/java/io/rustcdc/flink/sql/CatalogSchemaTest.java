package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.flink.FlinkVersion;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.junit.jupiter.api.Test;

/**
 * A catalog table's schema, derived from a source table's description: the connector's default type per column,
 * NOT NULL where the source promises it, the primary key; and what the table factory then checks of it.
 */
class CatalogSchemaTest {
    private static final boolean FLINK_2 = FlinkVersion.current().isNewerVersionThan(FlinkVersion.v1_20);
    private static final TableId TABLE = TableId.of("shop", "public", "orders");

    /** Replays a run of {@link #everyDerivedSchemaPassesTheTableFactorysCheck}: {@code -Drustcdc.catalog.seed=N}. */
    private static final String SEED_PROPERTY = "rustcdc.catalog.seed";

    /** A column: name, declared type as the catalogue writes it, value type, nullable. */
    private record Col(String name, String declared, ValueType type, boolean nullable) {}

    private static TableDescription description(List<Col> columns, List<String> key) {
        return TableDescription.of(TABLE, RowShape.of(TABLE.schema(), TABLE.table(), columns.stream()
                        .map(c -> RowShape.Column.of(c.name(), c.declared(), c.nullable())).collect(Collectors.toList()), key),
                RowType.of(columns.stream().map(Col::name).collect(Collectors.toList()),
                        columns.stream().map(Col::type).collect(Collectors.toList())));
    }

    private static Schema derive(TableDescription table, ConnectorTypes types) {
        return CatalogSchema.derive(table, types, "pg.shop.`public.orders`", CatalogSchemaTest.class.getClassLoader());
    }

    private static List<String> columns(Schema schema) {
        return schema.getColumns().stream().map(c -> c.getName() + " "
                + ((Schema.UnresolvedPhysicalColumn) c).getDataType()).collect(Collectors.toList());
    }

    private static LogicalType type(Schema.UnresolvedColumn column) {
        return ((DataType) ((Schema.UnresolvedPhysicalColumn) column).getDataType()).getLogicalType();
    }

    private static ValueType of(ValueKind kind) {
        return ValueType.of(kind);
    }

    @Test
    void postgresColumnsGetTheirDefaultTypesNullabilityAndTheKey() {
        Schema schema = derive(description(List.of(new Col("id", "bigint", of(ValueKind.BIGINT), false),
                new Col("flag", "boolean", of(ValueKind.BOOLEAN), true),
                new Col("small", "smallint", of(ValueKind.INTEGER), true),
                new Col("o", "oid", of(ValueKind.INTEGER), true),
                new Col("amount", "numeric(12,4)", of(ValueKind.DECIMAL), false),
                new Col("wide", "numeric(50,2)", of(ValueKind.DECIMAL), true),
                new Col("free", "numeric", of(ValueKind.DECIMAL), true),
                new Col("r", "real", of(ValueKind.FLOAT32), true),
                new Col("u", "uuid", of(ValueKind.UUID), true),
                new Col("b", "bytea", of(ValueKind.BYTES), true),
                new Col("ts", "timestamp(3) without time zone", ValueType.temporal(ValueKind.TIMESTAMP, 3), true),
                new Col("tstz", "timestamp with time zone", ValueType.temporal(ValueKind.TIMESTAMP_TZ,
                        ValueType.UNSPECIFIED_PRECISION), true),
                new Col("ints", "integer[]", ValueType.arrayOf(of(ValueKind.INTEGER)), true),
                new Col("nums", "numeric(5,1)[]", ValueType.arrayOf(of(ValueKind.DECIMAL)), false)), List.of("id")),
                new PostgresTypes());
        assertThat(columns(schema)).containsExactly("id BIGINT NOT NULL", "flag BOOLEAN", "small SMALLINT", "o BIGINT",
                "amount DECIMAL(12, 4) NOT NULL", "wide STRING", "free STRING", "r FLOAT", "u STRING", "b BYTES",
                "ts TIMESTAMP(3)", "tstz TIMESTAMP_LTZ(6)", "ints ARRAY<INT>", "nums ARRAY<DECIMAL(5, 1)> NOT NULL");
        assertThat(schema.getPrimaryKey().orElseThrow().getColumnNames()).containsExactly("id");
    }

    @Test
    void aTableWithoutPrimaryKeyHasNone() {
        Schema schema = derive(description(List.of(new Col("note", "text", of(ValueKind.TEXT), true)), List.of()),
                new PostgresTypes());
        assertThat(columns(schema)).containsExactly("note STRING");
        assertThat(schema.getPrimaryKey()).isEmpty();
    }

    /** A primary key is a set of columns: declared in another order it is the source's; another set is refused. */
    @Test
    void aDeclaredPrimaryKeyIsTheSourcesInAnyOrder() {
        TableDescription table = description(List.of(new Col("a", "integer", of(ValueKind.INTEGER), false),
                new Col("b", "integer", of(ValueKind.INTEGER), false)), List.of("a", "b"));
        List<LogicalType> declared = List.of(new IntType(false), new IntType(false));
        PostgresTypes types = new PostgresTypes();
        assertThat(new DeclaredColumns(List.of("a", "b"), declared, List.of("b", "a"), types)
                .problems(TABLE, table.shape(), table.rowType())).isEmpty();
        assertThat(new DeclaredColumns(List.of("a", "b"), declared, List.of("a"), types)
                .problems(TABLE, table.shape(), table.rowType()))
                .containsExactly("the declared PRIMARY KEY [a] differs from the source's [a, b]");
    }

    @Test
    void mysqlColumnsGetTheirDefaultTypes() {
        Schema schema = derive(description(List.of(new Col("id", "bigint(20) unsigned", of(ValueKind.UNSIGNED_BIGINT),
                        false),
                new Col("flag", "tinyint(1)", of(ValueKind.INTEGER), true),
                new Col("s", "smallint(5) unsigned", of(ValueKind.INTEGER), true),
                new Col("m", "mediumint(9)", of(ValueKind.INTEGER), true),
                new Col("iu", "int(10) unsigned", of(ValueKind.INTEGER), true),
                new Col("y", "year(4)", of(ValueKind.INTEGER), true),
                new Col("d", "decimal(65,30)", of(ValueKind.DECIMAL), true),
                new Col("bit1", "bit(1)", of(ValueKind.BOOLEAN), true),
                new Col("bits", "bit(12)", of(ValueKind.BITS), true),
                new Col("dt", "datetime(6)", ValueType.temporal(ValueKind.TIMESTAMP, 6), true),
                new Col("ts", "timestamp(3)", ValueType.temporal(ValueKind.TIMESTAMP_TZ, 3), true),
                new Col("v", "vector(3)", ValueType.arrayOf(of(ValueKind.FLOAT32)), true)), List.of("id")),
                new MySqlTypes());
        assertThat(columns(schema)).containsExactly("id DECIMAL(20, 0) NOT NULL", "flag TINYINT", "s INT", "m INT",
                "iu BIGINT", "y SMALLINT", "d STRING", "bit1 BOOLEAN", "bits BYTES", "dt TIMESTAMP(6)",
                "ts TIMESTAMP_LTZ(3)", "v ARRAY<FLOAT>");
    }

    @Test
    void sqlServerColumnsGetTheirDefaultTypes() {
        TableId table = TableId.of("shop", "dbo", "orders");
        List<SqlServerColumn> columns = List.of(SqlServerColumn.of("dbo.orders", "id", "int", 4, 10, 0, false),
                SqlServerColumn.of("dbo.orders", "price", "money", 8, 19, 4, true),
                SqlServerColumn.of("dbo.orders", "guid", "uniqueidentifier", 16, 0, 0, true),
                SqlServerColumn.of("dbo.orders", "at", "datetimeoffset", 10, 34, 7, true),
                SqlServerColumn.of("dbo.orders", "local", "datetime2", 8, 27, 7, true),
                SqlServerColumn.of("dbo.orders", "tiny", "tinyint", 1, 3, 0, true));
        Schema schema = CatalogSchema.derive(DescribedSqlServerTableFactory.description(table, columns, List.of("id")),
                new SqlServerTypes(), "ms.shop.`dbo.orders`", getClass().getClassLoader());
        assertThat(columns(schema)).containsExactly("id INT NOT NULL", "price DECIMAL(19, 4)", "guid STRING",
                "at STRING", "local TIMESTAMP(7)", "tiny SMALLINT");
    }

    @Test
    void timeKeepsMillisecondsOnFlink2AndIsRefusedByNameOnFlink120() {
        TableDescription times = description(List.of(new Col("id", "integer", of(ValueKind.INTEGER), false),
                new Col("t0", "time(0) without time zone", ValueType.temporal(ValueKind.TIME, 0), true),
                new Col("t6", "time without time zone", ValueType.temporal(ValueKind.TIME, 6), true)), List.of("id"));
        if (FLINK_2) {
            assertThat(columns(derive(times, new PostgresTypes()))).containsExactly("id INT NOT NULL", "t0 TIME(0)",
                    "t6 TIME(3)");
        } else {
            CatalogException e = catchThrowableOfType(CatalogException.class, () -> derive(times, new PostgresTypes()));
            assertThat(e).hasMessage("Table pg.shop.`public.orders` (source table public.orders) cannot be read "
                    + "exactly through the catalog:\n  - column t6 (time without time zone): its values need TIME(3), "
                    + "and Flink 1.20 plans TIME at precision 0 only (Flink 2.x keeps TIME(3))\nDeclare it with CREATE "
                    + "TABLE without these columns, or leave it out of the catalog with 'table.exclude-list'.");
        }
    }

    /**
     * Random tables of the declared types each connector's catalogue writes: the derived schema, declared as it
     * is, passes the check the table factory makes when a query over the catalog's table is planned (every type
     * holds its column's values exactly, NOT NULL only where the source promises it, the same key).
     */
    @Test
    void everyDerivedSchemaPassesTheTableFactorysCheck() {
        String given = System.getProperty(SEED_PROPERTY);
        long seed = given != null ? Long.parseLong(given) : System.nanoTime();
        System.out.println("CatalogSchemaTest seed " + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed + ")");
        Random random = new Random(seed);
        int refused = 0;
        for (int round = 0; round < 500; round++) {
            boolean postgres = random.nextBoolean();
            List<Col> cols = new ArrayList<>();
            int n = 1 + random.nextInt(8);
            for (int i = 0; i < n; i++) {
                Col c = postgres ? randomPostgres("c" + i, random) : randomMySql("c" + i, random);
                cols.add(i == 0 ? new Col(c.name(), c.declared(), c.type(), false) : c);
            }
            List<String> key = random.nextBoolean() ? List.of("c0") : List.of();
            TableDescription table = description(cols, key);
            ConnectorTypes types = postgres ? new PostgresTypes() : new MySqlTypes();
            Schema schema;
            try {
                schema = derive(table, types);
            } catch (CatalogException e) {
                assertThat(FLINK_2).as("seed %s: refused on Flink 2: %s", seed, e.getMessage()).isFalse();
                assertThat(e.getMessage()).as("seed %s", seed).contains("Flink 1.20 plans TIME at precision 0");
                refused++;
                continue;
            }
            List<String> names = new ArrayList<>();
            List<LogicalType> declared = new ArrayList<>();
            schema.getColumns().forEach(c -> {
                names.add(c.getName());
                declared.add(type(c));
            });
            assertThat(names).as("seed %s", seed).isEqualTo(cols.stream().map(Col::name).collect(Collectors.toList()));
            for (int i = 0; i < cols.size(); i++) {
                assertThat(declared.get(i).isNullable()).as("seed %s: %s", seed, cols.get(i)).isEqualTo(cols.get(i).nullable());
            }
            assertThat(new DeclaredColumns(names, declared, key, types).problems(TABLE, table.shape(), table.rowType()))
                    .as("seed %s: %s", seed, cols).isEmpty();
        }
        System.out.println("CatalogSchemaTest: " + refused + " of 500 tables refused (TIME on Flink 1.20)");
    }

    private static Col randomPostgres(String name, Random r) {
        boolean nullable = r.nextBoolean();
        int p = r.nextInt(7);
        switch (r.nextInt(12)) {
            case 0:
                return new Col(name, "smallint", of(ValueKind.INTEGER), nullable);
            case 1:
                return new Col(name, "integer", of(ValueKind.INTEGER), nullable);
            case 2:
                return new Col(name, "oid", of(ValueKind.INTEGER), nullable);
            case 3:
                return new Col(name, "bigint", of(ValueKind.BIGINT), nullable);
            case 4: {
                int precision = 1 + r.nextInt(60);
                return new Col(name, "numeric(" + precision + "," + r.nextInt(precision + 1) + ")", of(ValueKind.DECIMAL),
                        nullable);
            }
            case 5:
                return new Col(name, "numeric", of(ValueKind.DECIMAL), nullable);
            case 6:
                return new Col(name, "timestamp(" + p + ") without time zone", ValueType.temporal(ValueKind.TIMESTAMP, p),
                        nullable);
            case 7:
                return new Col(name, "timestamp(" + p + ") with time zone", ValueType.temporal(ValueKind.TIMESTAMP_TZ, p),
                        nullable);
            case 8:
                return new Col(name, "time(" + p + ") without time zone", ValueType.temporal(ValueKind.TIME, p), nullable);
            case 9:
                return new Col(name, "integer[]", ValueType.arrayOf(of(ValueKind.INTEGER)), nullable);
            case 10:
                return new Col(name, "double precision", of(ValueKind.FLOAT64), nullable);
            default:
                return new Col(name, "text", of(ValueKind.TEXT), nullable);
        }
    }

    private static Col randomMySql(String name, Random r) {
        boolean nullable = r.nextBoolean();
        int p = r.nextInt(7);
        String unsigned = r.nextBoolean() ? " unsigned" : "";
        switch (r.nextInt(10)) {
            case 0: {
                String[] ints = {"tinyint(4)", "tinyint(1)", "smallint(6)", "mediumint(9)", "int(11)", "year(4)"};
                String base = ints[r.nextInt(ints.length)];
                return new Col(name, base.startsWith("year") ? base : base + unsigned, of(ValueKind.INTEGER), nullable);
            }
            case 1:
                return new Col(name, "bigint(20)" + unsigned, of(unsigned.isEmpty() ? ValueKind.BIGINT
                        : ValueKind.UNSIGNED_BIGINT), nullable);
            case 2: {
                int precision = 1 + r.nextInt(65);
                return new Col(name, "decimal(" + precision + "," + r.nextInt(Math.min(precision, 30) + 1) + ")" + unsigned,
                        of(ValueKind.DECIMAL), nullable);
            }
            case 3:
                return new Col(name, "datetime(" + p + ")", ValueType.temporal(ValueKind.TIMESTAMP, p), nullable);
            case 4:
                return new Col(name, "timestamp(" + p + ")", ValueType.temporal(ValueKind.TIMESTAMP_TZ, p), nullable);
            case 5:
                return new Col(name, "time(" + p + ")", ValueType.temporal(ValueKind.TIME, p), nullable);
            case 6:
                return new Col(name, "bit(" + (2 + r.nextInt(63)) + ")", of(ValueKind.BITS), nullable);
            case 7:
                return new Col(name, "float", of(ValueKind.FLOAT32), nullable);
            case 8:
                return new Col(name, "vector(" + (1 + r.nextInt(16)) + ")", ValueType.arrayOf(of(ValueKind.FLOAT32)),
                        nullable);
            default:
                return new Col(name, "varchar(20)", of(ValueKind.TEXT), nullable);
        }
    }
}
