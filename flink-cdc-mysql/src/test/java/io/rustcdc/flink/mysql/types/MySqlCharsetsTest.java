package io.rustcdc.flink.mysql.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class MySqlCharsetsTest {
    private static final MySqlColumn UTF8 = CatalogTypes.column("d.t", "c", "varchar(10)", "utf8mb4");
    private static final MySqlColumn LATIN1 = CatalogTypes.column("d.t", "l", "varchar(10)", "latin1");

    @Test
    void validTextDecodesAndInvalidBytesFailNamingTheColumnNotTheValue() {
        String text = "h\u00e9llo \uD83C\uDF89";
        assertThat(MySqlCharsets.decode(UTF8, text.getBytes(StandardCharsets.UTF_8))).isEqualTo(text);
        assertThatThrownBy(() -> MySqlCharsets.decode(UTF8, HexFormat.of().parseHex("61c328")))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                .hasMessageContaining("d.t.c (varchar(10))").hasMessageContaining("not valid UTF-8");
    }

    @Test
    void aStoredReplacementCharacterIsTextNotAnError() {
        assertThat(MySqlCharsets.decode(UTF8, HexFormat.of().parseHex("61efbfbd62"))).isEqualTo("a\uFFFDb");
    }

    @Test
    void latin1IsWindows1252WithTheFiveBytesItLeavesUndefinedAsTheServerConvertsThem() {
        // what MariaDB gives for CONVERT(_latin1 x'818D8F909D80E9' USING utf8mb4)
        assertThat(MySqlCharsets.decode(LATIN1, HexFormat.of().parseHex("818d8f909d80e9")))
                .isEqualTo("\u0081\u008d\u008f\u0090\u009d\u20ac\u00e9");
    }

    @Test
    void gb18030DecodesByOracleMySqlsGb18030Of2005WhicheverMappingTheJvmUses() {
        MySqlColumn gb = CatalogTypes.column("d.t", "g", "varchar(10)", "gb18030");
        // what Oracle MySQL 9.7 gives for CONVERT(CONVERT(x'...' USING gb18030) USING utf8mb4)
        assertThat(MySqlCharsets.decode(gb, HexFormat.of().parseHex("a6d9fe59"))).isEqualTo("\ue78d\ue81e");
        assertThat(MySqlCharsets.decode(gb, HexFormat.of().parseHex("8431823682359037"))).isEqualTo("\ufe10\u9fb4");
        // sequences both standards agree on stay as they are
        assertThat(MySqlCharsets.decode(gb, HexFormat.of().parseHex("41d6d0a8bc"))).isEqualTo("A\u4e2d\u1e3f");
    }
}
