package io.rustcdc.flink.mysql.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The binary JSON reader and the double text without a server; that both agree with Oracle MySQL's
 * own text for random documents is {@code MySqlValuesITCase}'s part.
 */
class MySqlJsonTextTest {

    @Test
    void doublesAreWrittenAsMyGcvtWritesThem() {
        assertThat(MySqlDoubleText.json(2.5)).isEqualTo("2.5");
        assertThat(MySqlDoubleText.json(1)).isEqualTo("1.0");
        assertThat(MySqlDoubleText.json(-0.0)).isEqualTo("-0.0");
        assertThat(MySqlDoubleText.json(0.0)).isEqualTo("0.0");
        assertThat(MySqlDoubleText.json(1e300)).isEqualTo("1e300");
        assertThat(MySqlDoubleText.json(1e14)).isEqualTo("100000000000000.0");
        assertThat(MySqlDoubleText.json(1e15)).isEqualTo("1e15");
        assertThat(MySqlDoubleText.json(0.0001)).isEqualTo("0.0001");
        assertThat(MySqlDoubleText.json(0.00001)).isEqualTo("0.00001");
        assertThat(MySqlDoubleText.json(1e-16)).isEqualTo("1e-16");
        assertThat(MySqlDoubleText.json(0.1 + 0.2)).isEqualTo("0.30000000000000004");
        assertThat(MySqlDoubleText.json(-1.7976931348623157e308)).isEqualTo("-1.7976931348623157e308");
        assertThat(MySqlDoubleText.json(4.9e-324)).isEqualTo("5e-324");
        assertThat(MySqlDoubleText.json(123456789012345.6)).isEqualTo("123456789012345.6");
        assertThat(MySqlDoubleText.json(1.2345678901234568e20)).isEqualTo("1.2345678901234568e20");
    }

    @Test
    void objectsArraysAndScalarsHaveTheServersSeparatorsAndEscapes() {
        // {"a": [1, "x\n\u0001"], "b": true}: small object, 2 keys; values: an array at offset, true inlined
        String hex = "00" // small object
                + "0200" + "2200" // 2 members, 34 bytes
                + "1200" + "0100" + "1300" + "0100" // key entries: offset 18 "a", offset 19 "b"
                + "02" + "1400" + "04" + "0100" // value entries: small array at 20, literal true
                + "61" + "62" // keys
                + "0200" + "0e00" + "05" + "0100" + "0c" + "0a00" // array: 2 elements, 14 bytes; int16 1; string at 10
                + "03" + "780a01"; // string of 3 bytes
        assertThat(MySqlJsonText.text(HexFormat.of().parseHex(hex))).isEqualTo("{\"a\": [1, \"x\\n\\u0001\"], \"b\": true}");
        assertThat(MySqlJsonText.text(HexFormat.of().parseHex("0a" + "ffffffffffffffff"))).isEqualTo("18446744073709551615");
        assertThat(MySqlJsonText.text(HexFormat.of().parseHex("09" + "0000000000000080"))).isEqualTo("-9223372036854775808");
        assertThat(MySqlJsonText.text(HexFormat.of().parseHex("0400"))).isEqualTo("null");
        assertThat(MySqlJsonText.text(new byte[0])).isEqualTo("null");
    }

    @Test
    void aTruncatedDocumentFailsInsteadOfGivingText() {
        assertThatThrownBy(() -> MySqlJsonText.text(HexFormat.of().parseHex("0c05616263")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ends early");
        assertThatThrownBy(() -> MySqlJsonText.text(HexFormat.of().parseHex("0002")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ends early");
    }
}
