package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.time.Instant;
import java.time.LocalDateTime;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * A timestamp finer than the declared precision fails rather than losing its last digits (Flink keeps only
 * milliseconds of a TIMESTAMP(3) row field), before 1970 as after.
 */
class FieldConverterTest {
    private static final String WHERE = "Column created_at of shop.orders";

    @Test
    void aTimestampFinerThanTheDeclaredPrecisionFails() {
        FieldConverter millis = FieldConverter.of(ValueType.of(ValueKind.TIMESTAMP), new TimestampType(3), WHERE);
        LocalDateTime exact = LocalDateTime.parse("1969-12-31T23:59:59.999");
        assertThat(millis.convert(exact)).isEqualTo(TimestampData.fromLocalDateTime(exact));
        for (String finer : new String[] {"2026-12-04T10:00:00.000001", "1969-12-31T23:59:59.999999"}) {
            assertThatThrownBy(() -> millis.convert(LocalDateTime.parse(finer))).isInstanceOf(CdcException.class)
                    .hasMessageContaining(WHERE).hasMessageContaining("finer than the declared precision");
        }
        FieldConverter seconds = FieldConverter.of(ValueType.of(ValueKind.TIMESTAMP), new TimestampType(0), WHERE);
        assertThatThrownBy(() -> seconds.convert(LocalDateTime.parse("1969-12-31T23:59:59.5")))
                .hasMessageContaining("finer than the declared precision");
    }

    @Test
    void aTimestampLtzFinerThanTheDeclaredPrecisionFails() {
        FieldConverter micros = FieldConverter.of(ValueType.of(ValueKind.TIMESTAMP_TZ), new LocalZonedTimestampType(6),
                WHERE);
        Instant exact = Instant.parse("1960-01-01T00:00:00.123456Z");
        assertThat(micros.convert(exact)).isEqualTo(TimestampData.fromInstant(exact));
        assertThatThrownBy(() -> micros.convert(Instant.parse("1960-01-01T00:00:00.123456789Z")))
                .isInstanceOf(CdcException.class).hasMessageContaining("finer than the declared precision");
        FieldConverter nanos = FieldConverter.of(ValueType.of(ValueKind.TIMESTAMP_TZ), new LocalZonedTimestampType(9),
                WHERE);
        assertThat(nanos.convert(Instant.parse("1960-01-01T00:00:00.123456789Z")))
                .isEqualTo(TimestampData.fromInstant(Instant.parse("1960-01-01T00:00:00.123456789Z")));
    }
}
