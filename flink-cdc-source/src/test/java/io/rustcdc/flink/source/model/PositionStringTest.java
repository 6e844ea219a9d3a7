package io.rustcdc.flink.source.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.testing.PositionTexts;
import org.junit.jupiter.api.Test;

/** {@link PositionString}'s pieces against the JDK's printing of the same numbers. */
class PositionStringTest {
    @Test
    void hexDigitsAsTheJdkPrintsThem() {
        PositionTexts.assertHexAsTheJdkPrints((n, width) -> PositionString.of(t -> t.hex(n, width)));
        assertThat(PositionString.of(t -> t.hex(0, 0))).isEqualTo("0");
        assertThat(PositionString.of(t -> t.hex(-1, 1))).isEqualTo("FFFFFFFFFFFFFFFF");
        assertThat(PositionString.of(t -> t.hex(0xB374D848L, 1))).isEqualTo("B374D848");
        assertThat(PositionString.of(t -> t.hex(0x2D, 8).text(":").hex(3, 4))).isEqualTo("0000002D:0003");
    }

    @Test
    void decimalsAsLongToStringPrintsThem() {
        for (long n : new long[] {0, 7, -12, 1234, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertThat(PositionString.of(t -> t.decimal(n))).isEqualTo(Long.toString(n));
        }
        assertThat(PositionString.of(t -> t.text("mysql-bin.000003:").decimal(4).text(" [\"é]")))
                .isEqualTo("mysql-bin.000003:4 [\"é]");
    }
}
