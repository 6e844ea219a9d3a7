package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * Every SQL Server type of docs/sqlserver.md, described as the connector's catalogue describes it ({@code
 * sys.columns}: system type name, max_length in bytes, precision, scale), against declared Flink types:
 * its default mapping holds every value, and a type that could round, truncate or wrap is refused with
 * the type that can.
 */
class SqlServerTypesTest {
    private static final SqlServerTypes TYPES = new SqlServerTypes();
    private static final LogicalType STRING = new VarCharType(VarCharType.MAX_LENGTH);
    private static final LogicalType BYTES = new VarBinaryType(VarBinaryType.MAX_LENGTH);

    /** A column as {@code sys.columns} gives it. */
    private static SqlServerColumn column(String type, int maxLength, int precision, int scale) {
        return SqlServerColumn.of("dbo.t", "c", type, maxLength, precision, scale, true);
    }

    private static SqlServerColumn column(String type) {
        return column(type, 0, 0, 0);
    }

    private static String defaultType(SqlServerColumn c) {
        return TYPES.defaultType(RowShape.Column.of(c.name(), c.dataType(), true), c.valueType());
    }

    private static String problem(SqlServerColumn c, LogicalType flink) {
        return TYPES.problem(RowShape.Column.of(c.name(), c.dataType(), true), c.valueType(), flink);
    }

    @Test
    void integersAndBitMapToTheSmallestTypeThatHoldsThem() {
        assertThat(defaultType(column("bit"))).isEqualTo("BOOLEAN");
        assertThat(problem(column("bit"), new BooleanType())).isNull();
        assertThat(problem(column("bit"), new TinyIntType())).isEqualTo("use BOOLEAN");
        // tinyint is unsigned: 0 to 255
        assertThat(defaultType(column("tinyint"))).isEqualTo("SMALLINT");
        assertThat(problem(column("tinyint"), new SmallIntType())).isNull();
        assertThat(problem(column("tinyint"), new TinyIntType()))
                .isEqualTo("its values range from 0 to 255; use a type that holds them all");
        assertThat(problem(column("tinyint"), new BooleanType()))
                .isEqualTo("its values range from 0 to 255; use a type that holds them all");
        assertThat(defaultType(column("smallint"))).isEqualTo("SMALLINT");
        assertThat(problem(column("smallint"), new TinyIntType()))
                .isEqualTo("its values range from -32768 to 32767; use a type that holds them all");
        assertThat(defaultType(column("int"))).isEqualTo("INT");
        assertThat(problem(column("int"), new BigIntType())).isNull();
        assertThat(problem(column("int"), new DecimalType(10, 0))).isNull();
        assertThat(problem(column("int"), new DecimalType(9, 0)))
                .isEqualTo("its values range from -2147483648 to 2147483647; use a type that holds them all");
        assertThat(defaultType(column("bigint"))).isEqualTo("BIGINT");
        assertThat(problem(column("bigint"), new IntType()))
                .isEqualTo("its values range from -9223372036854775808 to 9223372036854775807; use a type that holds them all");
        assertThat(problem(column("bigint"), new DecimalType(19, 0))).isNull();
    }

    @Test
    void decimalNumericAndMoneyKeepTheirDigitsAndScale() {
        SqlServerColumn decimal = column("decimal", 17, 38, 10);
        assertThat(decimal.dataType()).isEqualTo("decimal(38,10)");
        assertThat(defaultType(decimal)).isEqualTo("DECIMAL(38, 10)");
        assertThat(problem(decimal, new DecimalType(38, 10))).isNull();
        assertThat(problem(decimal, STRING)).isNull();
        assertThat(problem(decimal, new DecimalType(38, 9))).isEqualTo("use DECIMAL(38, 10) or STRING");
        assertThat(problem(decimal, new DoubleType())).isEqualTo("use DECIMAL(38, 10) or STRING");
        SqlServerColumn numeric = column("numeric", 5, 5, 0);
        assertThat(defaultType(numeric)).isEqualTo("DECIMAL(5, 0)");
        assertThat(problem(numeric, new DecimalType(7, 0))).isNull(); // wider in whole digits, same scale
        assertThat(problem(numeric, new DecimalType(4, 0))).isEqualTo("use DECIMAL(5, 0) or STRING");
        // money: 8 bytes, -922,337,203,685,477.5808 to 922,337,203,685,477.5807; smallmoney: 4 bytes
        SqlServerColumn money = column("money", 8, 19, 4);
        assertThat(money.dataType()).isEqualTo("money");
        assertThat(defaultType(money)).isEqualTo("DECIMAL(19, 4)");
        assertThat(problem(money, new DecimalType(19, 4))).isNull();
        assertThat(problem(money, new DecimalType(18, 4))).isEqualTo("use DECIMAL(19, 4) or STRING");
        assertThat(problem(money, new DecimalType(19, 2))).isEqualTo("use DECIMAL(19, 4) or STRING");
        SqlServerColumn smallmoney = column("smallmoney", 4, 10, 4);
        assertThat(defaultType(smallmoney)).isEqualTo("DECIMAL(10, 4)");
        assertThat(problem(smallmoney, new DecimalType(10, 4))).isNull();
        assertThat(problem(smallmoney, new DecimalType(9, 4))).isEqualTo("use DECIMAL(10, 4) or STRING");
    }

    @Test
    void floatingPointKeepsItsWidth() {
        assertThat(defaultType(column("real", 4, 24, 0))).isEqualTo("FLOAT");
        assertThat(problem(column("real", 4, 24, 0), new DoubleType())).isNull();
        assertThat(defaultType(column("float", 8, 53, 0))).isEqualTo("DOUBLE");
        assertThat(problem(column("float", 8, 53, 0), new FloatType())).isEqualTo("use DOUBLE");
    }

    @Test
    void textTypesXmlAndUniqueidentifierAreStrings() {
        SqlServerColumn[] texts = {column("char", 10, 0, 0), column("varchar", 255, 0, 0), column("varchar", -1, 0, 0),
            column("nchar", 20, 0, 0), column("nvarchar", 510, 0, 0), column("nvarchar", -1, 0, 0),
            column("text", 16, 0, 0), column("ntext", 16, 0, 0), column("xml", -1, 0, 0),
            column("uniqueidentifier", 16, 0, 0)};
        for (SqlServerColumn c : texts) {
            assertThat(defaultType(c)).as(c.dataType()).isEqualTo("STRING");
            assertThat(problem(c, STRING)).as(c.dataType()).isNull();
            // a bounded VARCHAR could truncate: its length counts characters, SQL Server's bytes or UTF-16 units
            assertThat(problem(c, new VarCharType(255))).as(c.dataType()).isEqualTo("use STRING");
        }
        assertThat(column("nvarchar", 510, 0, 0).dataType()).isEqualTo("nvarchar(255)");
        assertThat(column("nvarchar", -1, 0, 0).dataType()).isEqualTo("nvarchar(max)");
        assertThat(column("uniqueidentifier", 16, 0, 0).dataType()).isEqualTo("uniqueidentifier");
    }

    @Test
    void binaryTypesAndRowversionAreBytes() {
        SqlServerColumn[] binaries = {column("binary", 16, 0, 0), column("varbinary", 100, 0, 0),
            column("varbinary", -1, 0, 0), column("image", 16, 0, 0), column("timestamp", 8, 0, 0)};
        for (SqlServerColumn c : binaries) {
            assertThat(defaultType(c)).as(c.dataType()).isEqualTo("BYTES");
            assertThat(problem(c, BYTES)).as(c.dataType()).isNull();
            assertThat(problem(c, new BinaryType(16))).as(c.dataType()).isEqualTo("use BYTES");
            assertThat(problem(c, STRING)).as(c.dataType()).isEqualTo("use BYTES");
        }
        assertThat(column("timestamp", 8, 0, 0).dataType()).isEqualTo("rowversion");
    }

    @Test
    void dateAndTimestampsKeepTheirPrecision() {
        assertThat(defaultType(column("date", 3, 10, 0))).isEqualTo("DATE");
        assertThat(problem(column("date", 3, 10, 0), new DateType())).isNull();
        assertThat(problem(column("date", 3, 10, 0), new TimestampType(0))).isEqualTo("use DATE");
        SqlServerColumn datetime27 = column("datetime2", 8, 27, 7);
        assertThat(datetime27.dataType()).isEqualTo("datetime2(7)");
        assertThat(defaultType(datetime27)).isEqualTo("TIMESTAMP(7)");
        assertThat(problem(datetime27, new TimestampType(7))).isNull();
        assertThat(problem(datetime27, new TimestampType(9))).isNull();
        assertThat(problem(datetime27, new TimestampType(6))).isEqualTo("use TIMESTAMP(7)");
        assertThat(problem(datetime27, new LocalZonedTimestampType(7))).isEqualTo("use TIMESTAMP(7)");
        SqlServerColumn datetime20 = column("datetime2", 6, 19, 0);
        assertThat(defaultType(datetime20)).isEqualTo("TIMESTAMP(0)");
        assertThat(defaultType(column("datetime", 8, 23, 3))).isEqualTo("TIMESTAMP(3)");
        assertThat(problem(column("datetime", 8, 23, 3), new TimestampType(2))).isEqualTo("use TIMESTAMP(3)");
        assertThat(defaultType(column("smalldatetime", 4, 16, 0))).isEqualTo("TIMESTAMP(0)");
        assertThat(problem(column("smalldatetime", 4, 16, 0), new TimestampType(0))).isNull();
    }

    @Test
    void timeMapsToTimeUpToFlinksPrecisionThree() {
        SqlServerColumn time7 = column("time", 5, 16, 7);
        assertThat(time7.dataType()).isEqualTo("time(7)");
        // Flink SQL declares TIME up to precision 3: a value with a digit below the millisecond fails when it arrives
        assertThat(defaultType(time7)).isEqualTo("TIME(3)");
        assertThat(problem(time7, new TimeType(3))).isNull();
        assertThat(problem(time7, new TimeType(0))).isEqualTo("use TIME(3)");
        SqlServerColumn time0 = column("time", 3, 8, 0);
        assertThat(defaultType(time0)).isEqualTo("TIME(0)");
        assertThat(problem(time0, new TimeType(0))).isNull();
        assertThat(problem(time0, STRING)).isEqualTo("use TIME(0)");
    }

    @Test
    void datetimeoffsetIsItsIsoTextNotAnInstantWhichWouldLoseTheOffset() {
        SqlServerColumn offset = column("datetimeoffset", 10, 34, 7);
        assertThat(offset.dataType()).isEqualTo("datetimeoffset(7)");
        assertThat(defaultType(offset)).isEqualTo("STRING");
        assertThat(problem(offset, STRING)).isNull();
        assertThat(problem(offset, new LocalZonedTimestampType(7))).isEqualTo("use STRING");
        assertThat(problem(offset, new TimestampType(7))).isEqualTo("use STRING");
    }

    @Test
    void typesWithoutOneValueTypeAreRefusedByNameWithTheTableAndColumn() {
        for (String type : new String[] {"sql_variant", "hierarchyid", "geometry", "geography"}) {
            assertThatThrownBy(() -> SqlServerColumn.of("dbo.t", "odd", type, 8016, 0, 0, true))
                    .isInstanceOf(CdcException.class)
                    .hasMessageContaining("dbo.t").hasMessageContaining("odd").hasMessageContaining(type)
                    .hasMessageContaining("exclude the table");
        }
    }
}
