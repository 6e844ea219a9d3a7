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
}
