package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CopyRowParserTest {
    private final CopyRowParser parser = new CopyRowParser();

    @Test
    void splitsOnTabsAndReadsNullsAndEscapes() {
        String[] columns = new String[5];
        parser.parse(bytes("1\t\\N\ta\\tb\\nc\\\\d\t\t\\x41\\101\\b\n"), columns);
        assertThat(columns).containsExactly("1", null, "a\tb\nc\\d", "", "AA\b");
    }

    @Test
    void keepsUtf8AndASingleEmptyColumn() {
        String[] one = new String[1];
        parser.parse(bytes("h\u00e9llo \uD83C\uDF89\n"), one);
        assertThat(one[0]).isEqualTo("h\u00e9llo \uD83C\uDF89");
        parser.parse(bytes("\n"), one);
        assertThat(one[0]).isEmpty();
    }

    @Test
    void aWrongColumnCountIsAnError() {
        assertThatThrownBy(() -> parser.parse(bytes("1\t2\n"), new String[3])).hasMessageContaining("sent 2 columns");
        assertThatThrownBy(() -> parser.parse(bytes("1\t2\t3\n"), new String[2])).hasMessageContaining("more than 2");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
