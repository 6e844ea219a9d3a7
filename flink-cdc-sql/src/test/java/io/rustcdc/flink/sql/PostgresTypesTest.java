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
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/** PostgreSQL's declared types, as {@code format_type()} writes them, against declared Flink types. */
class PostgresTypesTest {
    private static final PostgresTypes TYPES = new PostgresTypes();
    private static final ValueType INTEGER = ValueType.of(ValueKind.INTEGER);
    private static final ValueType DECIMAL = ValueType.of(ValueKind.DECIMAL);

    private static String problem(String declared, ValueType type, LogicalType flink) {
        return TYPES.problem(RowShape.Column.of("c", declared, true), type, flink);
    }

    private static String defaultType(String declared, ValueType type) {
        return TYPES.defaultType(RowShape.Column.of("c", declared, true), type);
    }

    @Test
    void integersMapToTheSmallestFlinkTypeThatHoldsTheirRange() {
        assertThat(defaultType("smallint", INTEGER)).isEqualTo("SMALLINT");
        assertThat(defaultType("integer", INTEGER)).isEqualTo("INT");
        assertThat(defaultType("oid", INTEGER)).isEqualTo("BIGINT");
        assertThat(defaultType("xid", INTEGER)).isEqualTo("BIGINT");
        assertThat(defaultType("bigint", ValueType.of(ValueKind.BIGINT))).isEqualTo("BIGINT");
        assertThat(problem("integer", INTEGER, new IntType())).isNull();
        assertThat(problem("integer", INTEGER, new BigIntType())).isNull();
        assertThat(problem("integer", INTEGER, new DecimalType(10, 0))).isNull();
        assertThat(problem("integer", INTEGER, new SmallIntType()))
                .isEqualTo("its values range from -2147483648 to 2147483647; use a type that holds them all");
        assertThat(problem("oid", INTEGER, new IntType()))
                .isEqualTo("its values range from 0 to 4294967295; use a type that holds them all");
        assertThat(problem("bigint", ValueType.of(ValueKind.BIGINT), new DecimalType(18, 0)))
                .isEqualTo("its values range from -9223372036854775808 to 9223372036854775807; use a type that holds "
                        + "them all");
    }

    @Test
    void anIntegerIsNeverABoolean() {
        assertThat(problem("integer", INTEGER, new BooleanType()))
                .isEqualTo("its values range from -2147483648 to 2147483647; use a type that holds them all");
        assertThat(problem("boolean", ValueType.of(ValueKind.BOOLEAN), new BooleanType())).isNull();
        assertThat(problem("boolean", ValueType.of(ValueKind.BOOLEAN), new IntType())).isEqualTo("use BOOLEAN");
    }

    @Test
    void numericKeepsItsDeclaredDigitsOrIsAString() {
        assertThat(defaultType("numeric(12,4)", DECIMAL)).isEqualTo("DECIMAL(12, 4)");
        assertThat(problem("numeric(12,4)", DECIMAL, new DecimalType(12, 4))).isNull();
        assertThat(problem("numeric(12,4)", DECIMAL, new DecimalType(20, 4))).isNull();
        assertThat(problem("numeric(12,4)", DECIMAL, new VarCharType(VarCharType.MAX_LENGTH))).isNull();
        assertThat(problem("numeric(12,4)", DECIMAL, new DecimalType(12, 2))).isEqualTo("use DECIMAL(12, 4) or STRING");
        assertThat(problem("numeric(12,4)", DECIMAL, new DecimalType(11, 4))).isEqualTo("use DECIMAL(12, 4) or STRING");
        assertThat(problem("numeric(12,4)", DECIMAL, new DoubleType())).isEqualTo("use DECIMAL(12, 4) or STRING");
        assertThat(defaultType("numeric", DECIMAL)).isEqualTo("STRING");
        assertThat(problem("numeric", DECIMAL, new DecimalType(38, 10)))
                .isEqualTo("its precision is not declared, so only STRING holds every value");
        assertThat(defaultType("numeric(40,2)", DECIMAL)).isEqualTo("STRING");
        assertThat(problem("numeric(40,2)", DECIMAL, new DecimalType(38, 2)))
                .isEqualTo("use STRING: Flink's DECIMAL holds 38 digits");
        assertThat(problem("numeric(40,2)", DECIMAL, new IntType())).isEqualTo("use STRING");
        // MySQL's spelling is not PostgreSQL's: format_type() never writes it
        assertThat(defaultType("decimal(12,4)", DECIMAL)).isEqualTo("STRING");
    }

    @Test
    void arraysMapTheirElements() {
        ValueType ints = ValueType.arrayOf(INTEGER);
        assertThat(defaultType("integer[]", ints)).isEqualTo("ARRAY<INT>");
        assertThat(defaultType("numeric(5,2)[]", ValueType.arrayOf(DECIMAL))).isEqualTo("ARRAY<DECIMAL(5, 2)>");
        assertThat(problem("integer[]", ints, new ArrayType(new IntType()))).isNull();
        assertThat(problem("integer[]", ints, new ArrayType(new SmallIntType())))
                .isEqualTo("elements: its values range from -2147483648 to 2147483647; use a type that holds them all");
        assertThat(problem("integer[]", ints, new IntType())).isEqualTo("use ARRAY<...>");
    }

    @Test
    void temporalTypesKeepTheirPrecision() {
        ValueType timestamp = ValueType.temporal(ValueKind.TIMESTAMP, 3);
        assertThat(defaultType("timestamp(3) without time zone", timestamp)).isEqualTo("TIMESTAMP(3)");
        assertThat(problem("timestamp(3) without time zone", timestamp, new TimestampType(3))).isNull();
        assertThat(problem("timestamp(3) without time zone", timestamp, new TimestampType(2)))
                .isEqualTo("use TIMESTAMP(3)");
        ValueType timestampTz = ValueType.temporal(ValueKind.TIMESTAMP_TZ, ValueType.UNSPECIFIED_PRECISION);
        assertThat(defaultType("timestamp with time zone", timestampTz)).isEqualTo("TIMESTAMP_LTZ(6)");
        assertThat(problem("timestamp with time zone", timestampTz, new LocalZonedTimestampType(3)))
                .isEqualTo("use TIMESTAMP_LTZ(6)");
        ValueType time = ValueType.temporal(ValueKind.TIME, 6);
        assertThat(defaultType("time without time zone", time)).isEqualTo("TIME(3)");
        assertThat(problem("time without time zone", time, new TimeType(3))).isNull();
        assertThat(problem("time without time zone", time, new TimeType(0))).isEqualTo("use TIME(3)");
    }

    @Test
    void textAndUuidAreStrings() {
        assertThat(defaultType("jsonb", ValueType.of(ValueKind.TEXT))).isEqualTo("STRING");
        assertThat(problem("uuid", ValueType.of(ValueKind.UUID), new VarCharType(VarCharType.MAX_LENGTH))).isNull();
        assertThat(problem("character varying(20)", ValueType.of(ValueKind.TEXT), new VarCharType(20)))
                .isEqualTo("use STRING");
    }
}
