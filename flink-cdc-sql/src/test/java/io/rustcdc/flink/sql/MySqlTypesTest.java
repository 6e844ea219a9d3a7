package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** MySQL's and MariaDB's declared types, as {@code COLUMN_TYPE} writes them, against declared Flink types. */
class MySqlTypesTest {
    private static final MySqlTypes TYPES = new MySqlTypes();
    private static final ValueType INTEGER = ValueType.of(ValueKind.INTEGER);
    private static final ValueType DECIMAL = ValueType.of(ValueKind.DECIMAL);

    private static String problem(String declared, ValueType type, LogicalType flink) {
        return TYPES.problem(RowShape.Column.of("c", declared, true), type, flink);
    }

    private static String defaultType(String declared, ValueType type) {
        return TYPES.defaultType(RowShape.Column.of("c", declared, true), type);
    }

    @Test
    void integersMapByWidthAndSignToTheSmallestFlinkTypeThatHoldsThem() {
        assertThat(defaultType("tinyint(4)", INTEGER)).isEqualTo("TINYINT");
        assertThat(defaultType("tinyint(3) unsigned", INTEGER)).isEqualTo("SMALLINT");
        assertThat(defaultType("smallint(6)", INTEGER)).isEqualTo("SMALLINT");
        assertThat(defaultType("smallint unsigned", INTEGER)).isEqualTo("INT");
        assertThat(defaultType("mediumint(9)", INTEGER)).isEqualTo("INT");
        assertThat(defaultType("mediumint(8) unsigned", INTEGER)).isEqualTo("INT");
        assertThat(defaultType("int(11)", INTEGER)).isEqualTo("INT");
        assertThat(defaultType("int", INTEGER)).isEqualTo("INT");
        assertThat(defaultType("INT(10) UNSIGNED", INTEGER)).isEqualTo("BIGINT");
        assertThat(defaultType("int(10) unsigned zerofill", INTEGER)).isEqualTo("BIGINT");
        assertThat(defaultType("year(4)", INTEGER)).isEqualTo("SMALLINT");
        assertThat(defaultType("year", INTEGER)).isEqualTo("SMALLINT");
        assertThat(problem("tinyint(3) unsigned", INTEGER, new TinyIntType()))
                .isEqualTo("its values range from 0 to 255; use a type that holds them all");
        assertThat(problem("mediumint(9)", INTEGER, new SmallIntType()))
                .isEqualTo("its values range from -8388608 to 8388607; use a type that holds them all");
        assertThat(problem("int(10) unsigned", INTEGER, new IntType()))
                .isEqualTo("its values range from 0 to 4294967295; use a type that holds them all");
        assertThat(problem("year(4)", INTEGER, new TinyIntType()))
                .isEqualTo("its values range from 0 to 2155; use a type that holds them all");
        assertThat(problem("int(10) unsigned", INTEGER, new DecimalType(10, 0))).isNull();
    }

    @Test
    void bigintUnsignedNeedsTwentyDigits() {
        ValueType unsigned = ValueType.of(ValueKind.UNSIGNED_BIGINT);
        assertThat(defaultType("bigint(20) unsigned", unsigned)).isEqualTo("DECIMAL(20, 0)");
        assertThat(problem("bigint(20) unsigned", unsigned, new DecimalType(20, 0))).isNull();
        assertThat(problem("bigint(20) unsigned", unsigned, new BigIntType()))
                .isEqualTo("its values range from 0 to 18446744073709551615; use a type that holds them all");
        assertThat(defaultType("bigint(20)", ValueType.of(ValueKind.BIGINT))).isEqualTo("BIGINT");
        assertThat(problem("bigint(20)", ValueType.of(ValueKind.BIGINT), new BigIntType())).isNull();
    }

    @Test
    void onlyTinyintOneMayBeDeclaredBoolean() {
        assertThat(problem("tinyint(1)", INTEGER, new BooleanType())).isNull();
        assertThat(problem("tinyint(1) unsigned", INTEGER, new BooleanType())).isNull();
        assertThat(defaultType("tinyint(1)", INTEGER)).isEqualTo("TINYINT");
        assertThat(problem("tinyint(4)", INTEGER, new BooleanType()))
                .isEqualTo("its values range from -128 to 127; use a type that holds them all");
        assertThat(problem("bit(1)", ValueType.of(ValueKind.BOOLEAN), new BooleanType())).isNull();
    }

    @Test
    void decimalKeepsItsDeclaredDigitsWithAnySignOrFill() {
        assertThat(defaultType("decimal(10,2)", DECIMAL)).isEqualTo("DECIMAL(10, 2)");
        assertThat(defaultType("decimal(10,2) unsigned zerofill", DECIMAL)).isEqualTo("DECIMAL(10, 2)");
        assertThat(problem("decimal(10,2) unsigned", DECIMAL, new DecimalType(10, 2))).isNull();
        assertThat(problem("decimal(10,2)", DECIMAL, new DecimalType(10, 3))).isEqualTo("use DECIMAL(10, 2) or STRING");
        assertThat(defaultType("decimal(65,30)", DECIMAL)).isEqualTo("STRING");
        assertThat(problem("decimal(65,30)", DECIMAL, new DecimalType(38, 30)))
                .isEqualTo("use STRING: Flink's DECIMAL holds 38 digits");
        assertThat(problem("decimal(65,30)", DECIMAL, new VarCharType(VarCharType.MAX_LENGTH))).isNull();
    }

    @Test
    void otherKindsMapAsEveryConnectorDoes() {
        assertThat(defaultType("float", ValueType.of(ValueKind.FLOAT32))).isEqualTo("FLOAT");
        assertThat(problem("float", ValueType.of(ValueKind.FLOAT32), new FloatType())).isNull();
        assertThat(problem("double", ValueType.of(ValueKind.FLOAT64), new FloatType())).isEqualTo("use DOUBLE");
        assertThat(defaultType("bit(12)", ValueType.of(ValueKind.BITS))).isEqualTo("BYTES");
        assertThat(problem("varbinary(16)", ValueType.of(ValueKind.BYTES), new VarBinaryType(16))).isEqualTo("use BYTES");
        assertThat(defaultType("datetime(6)", ValueType.temporal(ValueKind.TIMESTAMP, 6))).isEqualTo("TIMESTAMP(6)");
        assertThat(problem("datetime(6)", ValueType.temporal(ValueKind.TIMESTAMP, 6), new TimestampType(3)))
                .isEqualTo("use TIMESTAMP(6)");
        assertThat(defaultType("geometry", ValueType.of(ValueKind.BYTES))).isEqualTo("BYTES");
    }

    @Test
    void aVectorIsAnArrayOfFloats() {
        ValueType vector = ValueType.arrayOf(ValueType.of(ValueKind.FLOAT32));
        assertThat(defaultType("vector(3)", vector)).isEqualTo("ARRAY<FLOAT>");
        assertThat(defaultType("vector(16383)", vector)).isEqualTo("ARRAY<FLOAT>");
        assertThat(problem("vector(3)", vector, new ArrayType(new FloatType(false)))).isNull();
        assertThat(problem("vector(3)", vector, new ArrayType(new FloatType()))).isNull();
        assertThat(problem("vector(3)", vector, new ArrayType(new DoubleType(false)))).isNull();
        assertThat(problem("vector(3)", vector, new ArrayType(new DecimalType(38, 10))))
                .isEqualTo("elements: use FLOAT or DOUBLE");
        assertThat(problem("vector(3)", vector, new VarBinaryType(VarBinaryType.MAX_LENGTH))).isEqualTo("use ARRAY<...>");
    }
}
