package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which type changes keep every stored value, by the type texts PostgreSQL and MySQL give. */
class ValueKeepingTypesTest {

    @Test
    void postgresWideningsKeepValuesAndEverythingElseMayRewriteThem() {
        String[][] keep = {
            {"character varying(64)", "character varying(128)"}, {"character varying(64)", "text"},
            {"character varying(64)", "character varying"}, {"numeric(10,2)", "numeric(12,2)"},
            {"numeric(10,2)", "numeric(11,3)"}, {"numeric(10,2)", "numeric"}, {"smallint", "integer"},
            {"integer", "bigint"}, {"integer", "numeric"}, {"timestamp(3) without time zone", "timestamp without time zone"},
            {"timestamp(3) with time zone", "timestamp(6) with time zone"}, {"time(0) without time zone",
                "time(3) without time zone"}, {"text", "text"},
        };
        String[][] rewrite = {
            {"character varying(64)", "character varying(8)"}, {"text", "character varying(64)"},
            {"numeric(10,2)", "numeric(10,1)"}, {"numeric(10,2)", "numeric(10,3)"}, {"numeric", "numeric(30,10)"},
            {"bigint", "integer"}, {"integer", "text"}, {"integer", "numeric(5,0)"},
            {"timestamp(6) without time zone", "timestamp(3) without time zone"},
            {"timestamp without time zone", "timestamp with time zone"}, {"character(3)", "character(5)"},
            {"character(3)", "character varying(5)"}, {"real", "double precision"}, {"date", "timestamp without time zone"},
        };
        for (String[] c : keep) {
            assertThat(ValueKeepingTypes.postgres(c[0], c[1])).as("%s -> %s", c[0], c[1]).isTrue();
        }
        for (String[] c : rewrite) {
            assertThat(ValueKeepingTypes.postgres(c[0], c[1])).as("%s -> %s", c[0], c[1]).isFalse();
        }
    }

    @Test
    void mysqlWideningsKeepValuesAndEverythingElseMayRewriteThem() {
        String[][] keep = {
            {"varchar(10)", "varchar(20)"}, {"varchar(10)", "longtext"}, {"char(3)", "char(5)"},
            {"decimal(10,2)", "decimal(12,2)"}, {"decimal(10,2) unsigned", "decimal(12,2)"}, {"int(11)", "bigint(20)"},
            {"int", "bigint"}, {"int unsigned", "bigint"}, {"int unsigned", "bigint unsigned"}, {"datetime", "datetime(3)"},
            {"time(3)", "time(6)"}, {"text", "mediumtext"}, {"blob", "longblob"}, {"varbinary(4)", "varbinary(8)"},
            {"enum('a','b')", "enum('a','b','c')"}, {"set('x')", "set('x','y')"},
        };
        String[][] rewrite = {
            {"varchar(10)", "varchar(3)"}, {"varchar(10)", "tinytext"}, {"varchar(10)", "text"}, {"char(3)", "varchar(5)"},
            {"decimal(10,2)", "decimal(10,1)"}, {"decimal(10,2)", "decimal(10,2) unsigned"}, {"bigint", "int"},
            {"int", "int unsigned"}, {"int unsigned", "int"}, {"int", "bigint zerofill"}, {"tinyint(1)", "int"},
            {"datetime(6)", "datetime"}, {"datetime", "timestamp"}, {"binary(4)", "binary(8)"}, {"float", "double"},
            {"enum('a','b')", "enum('b','a')"}, {"enum('a','b')", "enum('a')"}, {"longtext", "text"}, {"int", "varchar(20)"},
        };
        for (String[] c : keep) {
            assertThat(ValueKeepingTypes.mysql(c[0], c[1])).as("%s -> %s", c[0], c[1]).isTrue();
        }
        for (String[] c : rewrite) {
            assertThat(ValueKeepingTypes.mysql(c[0], c[1])).as("%s -> %s", c[0], c[1]).isFalse();
        }
    }

    /** The shape's type carries a MySQL text column's character set unless utf8mb4: a conversion is a type change. */
    @Test
    void mysqlCharacterSetConversionsKeepTextOnlyIntoASetHoldingEveryOldCharacter() {
        MySqlTypes types = new MySqlTypes();
        String[][] keep = {
            {"varchar(50) character set latin1", "varchar(50)"}, {"varchar(50) character set ascii", "varchar(50)"},
            {"varchar(50) character set utf8mb3", "varchar(50)"}, {"text character set utf8", "mediumtext"},
            {"char(3) character set ascii", "char(3) character set latin1"}, {"text character set latin1", "mediumtext"},
            {"varchar(5) character set latin1", "varchar(5) character set utf8mb3"},
            {"varchar(5)", "varchar(5) character set utf16"}, {"varchar(5) character set latin2", "varchar(5)"},
            {"varchar(5) character set utf8", "varchar(5) character set utf8mb3"},
            {"enum('a') character set latin1", "enum('a','b')"}, {"varbinary(4)", "varbinary(8)"},
        };
        String[][] rewrite = {
            {"varchar(50)", "varchar(50) character set latin1"}, {"varchar(50)", "varchar(50) character set utf8mb3"},
            {"text", "text character set ascii"}, {"varchar(50) character set latin1", "varchar(50) character set ascii"},
            {"varchar(50) character set utf8mb3", "varchar(50) character set latin1"},
            {"varchar(50) character set latin2", "varchar(50) character set latin1"},
            {"varchar(50) character set latin1", "varchar(20)"}, {"enum('a')", "enum('a') character set latin1"},
        };
        for (String[] c : keep) {
            assertThat(types.keepsValues(c[0], c[1])).as("%s -> %s", c[0], c[1]).isTrue();
        }
        for (String[] c : rewrite) {
            assertThat(types.keepsValues(c[0], c[1])).as("%s -> %s", c[0], c[1]).isFalse();
        }
    }
}
