package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What orders a chunk key on MySQL and MariaDB: its type's family and its collation, not its length or width. */
class MySqlChunkKeyTest {
    private static final List<String> KEY = List.of("k", "n");

    @Test
    void lengthWidthSignednessAndPrecisionKeepTheOrder() {
        TableDescription planned = table("varchar(20)", "utf8mb4_general_ci", "int(11)");
        for (TableDescription now : List.of(table("varchar(40)", "utf8mb4_general_ci", "bigint"),
                table("VARCHAR(20)", "utf8mb4_general_ci", "int unsigned"),
                table("varchar(20)", "utf8mb4_general_ci", "mediumint(8) unsigned zerofill"))) {
            assertThatCode(() -> MySqlChunkKey.requireSameOrder(planned, now, KEY)).doesNotThrowAnyException();
            assertThat(MySqlChunkKey.order(now, "k")).isEqualTo("varchar collate utf8mb4_general_ci");
            assertThat(MySqlChunkKey.order(now, "n")).isEqualTo("integer");
        }
        assertThat(MySqlChunkKey.order(table("decimal(10,2)", null, "int"), "k"))
                .isEqualTo(MySqlChunkKey.order(table("decimal(12,4)", null, "int"), "k")).isEqualTo("decimal");
    }

    @Test
    void aCollationACharacterSetOrATypeFamilyChangesIt() {
        TableDescription planned = table("varchar(20)", "utf8mb4_general_ci", "int");
        for (TableDescription now : List.of(table("varchar(20)", "utf8mb4_bin", "int"),
                table("varchar(20) character set latin1", "latin1_swedish_ci", "int"),
                table("varchar(20)", "utf8mb4_general_ci on CHAR", "int"),
                table("varchar(20)", "utf8mb4_general_ci", "varchar(11)"),
                table("bigint", null, "int"))) {
            assertThatThrownBy(() -> MySqlChunkKey.requireSameOrder(planned, now, KEY)).isInstanceOf(CdcException.class)
                    .hasMessageContaining("The chunk key of table d.t changed while its snapshot was read (")
                    .hasMessageMatching(".*\\((k from varchar collate utf8mb4_general_ci|n from integer) to [^)]+\\).*")
                    .hasMessageContaining("Start the job without its state");
        }
    }

    @Test
    void anEnumsLabelsOrderItAndAGoneColumnIsNamed() {
        assertThat(MySqlChunkKey.order(table("enum('a','b') character set latin1", "latin1_bin on ENUM", "int"), "k"))
                .isEqualTo("enum('a','b') collate latin1_bin on ENUM");
        assertThat(MySqlChunkKey.order(table("enum('b','a')", "latin1_bin on ENUM", "int"), "k")).startsWith("enum('b','a')");
        assertThat(MySqlChunkKey.order(table("int", null, "int"), "gone")).isEqualTo("no column");
    }

    private static TableDescription table(String keyType, String collation, String numberType) {
        return TableDescription.of(TableId.of("d", "d", "t"), RowShape.of("d", "t",
                List.of(RowShape.Column.of("k", keyType, false), RowShape.Column.of("n", numberType, false)), KEY),
                RowType.of(KEY, List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.INTEGER))),
                Arrays.asList(collation, null));
    }
}
