package io.rustcdc.flink.postgres.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.model.SpecialValue;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PgTextDecodersTest {

    @Test
    void temporalEdgeCases() {
        assertThat(InPlaceText.decode(PgTemporal::date, "0044-03-15 BC")).isEqualTo(LocalDate.of(-43, 3, 15));
        assertThat(InPlaceText.decode(PgTemporal::date, "5874897-12-31")).isEqualTo(LocalDate.of(5874897, 12, 31));
        assertThat(InPlaceText.decode(PgTemporal::date, "-infinity")).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(InPlaceText.decode(PgTemporal::time, "24:00:00")).isEqualTo(Duration.ofHours(24));
        assertThat(InPlaceText.decode(PgTemporal::time, "01:02:03.000001")).isEqualTo(Duration.ofSeconds(3723, 1000));
        assertThat(InPlaceText.decode(PgTemporal::timestamp, "2024-03-30 23:30:00.5"))
                .isEqualTo(LocalDateTime.of(2024, 3, 30, 23, 30, 0, 500_000_000));
        assertThat(InPlaceText.decode(PgTemporal::timestampTz, "2024-03-30 23:30:00+00"))
                .isEqualTo(Instant.parse("2024-03-30T23:30:00Z"));
        assertThat(InPlaceText.decode(PgTemporal::timestampTz, "2024-03-30 23:30:00.25-05:30"))
                .isEqualTo(Instant.parse("2024-03-31T05:00:00.25Z"));
        assertThat(InPlaceText.decode(PgTemporal::timestampTz, "1900-01-01 00:00:00+00:19:32"))
                .isEqualTo(Instant.parse("1899-12-31T23:40:28Z"));
        assertThat(InPlaceText.decode(PgTemporal::timestampTz, "infinity")).isEqualTo(SpecialValue.POSITIVE_INFINITY);
    }

    @Test
    void malformedTextFailsWithoutQuotingIt() {
        assertThatThrownBy(() -> InPlaceText.decode(PgTemporal::time, "25:00:00")).isInstanceOf(PgTextException.class)
                .hasMessageNotContaining("25:00");
        assertThatThrownBy(() -> InPlaceText.decode(PgTemporal::time, "24:00:01")).isInstanceOf(PgTextException.class);
        assertThatThrownBy(() -> InPlaceText.decode(PgTemporal::date, "2024/03/30")).isInstanceOf(PgTextException.class)
                .hasMessageNotContaining("2024");
    }

    @Test
    void arrays() {
        TextDecoder ints = Long::valueOf;
        assertThat(PgArrays.parse("{}", ',', ints)).isEmpty();
        assertThat(PgArrays.parse("{1,NULL,3}", ',', ints)).isEqualTo(Arrays.asList(1L, null, 3L));
        assertThat(PgArrays.parse("{{1,2},{3,4}}", ',', ints)).isEqualTo(List.of(List.of(1L, 2L), List.of(3L, 4L)));
        assertThat(PgArrays.parse("{\"a,b\",\"q\\\"x\",null,\"NULL\"}", ',', s -> s))
                .isEqualTo(Arrays.asList("a,b", "q\"x", null, "NULL"));
        assertThat(PgArrays.parse("{(1,2);(3,4)}", ';', s -> s)).isEqualTo(List.of("(1,2)", "(3,4)"));
        assertThatThrownBy(() -> PgArrays.parse("[0:1]={1,2}", ',', ints)).isInstanceOf(PgTextException.class)
                .hasMessageContaining("lower bounds other than 1");
        assertThatThrownBy(() -> PgArrays.parse("{1,2", ',', ints)).isInstanceOf(PgTextException.class);
    }
}
