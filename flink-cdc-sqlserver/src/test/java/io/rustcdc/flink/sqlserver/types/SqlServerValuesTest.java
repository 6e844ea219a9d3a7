package io.rustcdc.flink.sqlserver.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ValueKind;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Values as mssql-jdbc returns them ({@code getObject}; {@code getString} of {@code CONVERT(varchar,
 * value, 121)} for temporal types and of uniqueidentifier), decoded exactly. The randomized test
 * prints its seed; replay with {@code -Drustcdc.sqlserver.seed=<seed>}.
 */
class SqlServerValuesTest {
    private static SqlServerColumn column(String type, int maxLength, int precision, int scale) {
        return SqlServerColumn.of("dbo.t", "c", type, maxLength, precision, scale, true);
    }

    @Test
    void exactNumericsKeepTheirDeclaredScale() {
        SqlServerColumn decimal = column("decimal", 17, 38, 10);
        assertThat(decimal.dataType()).isEqualTo("decimal(38,10)");
        assertThat(decimal.decode(new BigDecimal("12345678901234567890123456.1234567891")))
                .isEqualTo(new BigDecimal("12345678901234567890123456.1234567891"));
        assertThat(((BigDecimal) decimal.decode(new BigDecimal("1.5"))).scale()).isEqualTo(10);
        assertThatThrownBy(() -> decimal.decode(new BigDecimal("1.00000000001"))).hasMessageContaining("decimal(38,10)");
        SqlServerColumn money = column("money", 8, 19, 4);
        assertThat(money.decode(new BigDecimal("-922337203685477.5808"))).isEqualTo(new BigDecimal("-922337203685477.5808"));
        assertThat(money.decode(new BigDecimal("3.1"))).isEqualTo(new BigDecimal("3.1000"));
        assertThat(column("smallmoney", 4, 10, 4).decode(new BigDecimal("214748.3647")))
                .isEqualTo(new BigDecimal("214748.3647"));
        assertThat(column("numeric", 9, 18, 0).decode(new BigDecimal("999999999999999999")))
                .isEqualTo(new BigDecimal("999999999999999999"));
    }

    @Test
    void integersBitAndFloats() {
        assertThat(column("tinyint", 1, 3, 0).decode((short) 255)).isEqualTo(255L); // unsigned
        assertThat(column("smallint", 2, 5, 0).decode((short) -32768)).isEqualTo(-32768L);
        assertThat(column("int", 4, 10, 0).decode(Integer.MIN_VALUE)).isEqualTo((long) Integer.MIN_VALUE);
        assertThat(column("bigint", 8, 19, 0).decode(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(column("bigint", 8, 19, 0).valueType().kind()).isEqualTo(ValueKind.BIGINT);
        assertThat(column("bit", 1, 1, 0).decode(Boolean.TRUE)).isEqualTo(true);
        assertThat(column("real", 4, 24, 0).decode(1.1f)).isEqualTo(1.1f);
        assertThat(column("float", 8, 53, 0).decode(0.1 + 0.2)).isEqualTo(0.30000000000000004);
    }

    @Test
    void temporalTypesFromStyle121Text() {
        assertThat(column("date", 3, 10, 0).decode("0001-01-01")).isEqualTo(LocalDate.of(1, 1, 1));
        SqlServerColumn dt2 = column("datetime2", 8, 27, 7);
        assertThat(dt2.dataType()).isEqualTo("datetime2(7)");
        assertThat(dt2.decode("9999-12-31 23:59:59.9999999"))
                .isEqualTo(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_900));
        SqlServerColumn dt2s0 = column("datetime2", 6, 19, 0);
        assertThat(dt2s0.decode("2026-07-20 12:34:56")).isEqualTo(LocalDateTime.of(2026, 7, 20, 12, 34, 56));
        assertThat(column("datetime2", 7, 23, 3).decode("2026-07-20 12:34:56.055"))
                .isEqualTo(LocalDateTime.of(2026, 7, 20, 12, 34, 56, 55_000_000));
        // datetime's 1/300 s ticks as SQL Server prints them: .003, .007
        assertThat(column("datetime", 8, 23, 3).decode("1753-01-01 00:00:00.007"))
                .isEqualTo(LocalDateTime.of(1753, 1, 1, 0, 0, 0, 7_000_000));
        assertThat(column("smalldatetime", 4, 16, 0).decode("2079-06-06 23:59:00.000"))
                .isEqualTo(LocalDateTime.of(2079, 6, 6, 23, 59));
        assertThat(column("time", 5, 16, 7).decode("23:59:59.9999999"))
                .isEqualTo(Duration.ofHours(24).minusNanos(100));
        assertThat(column("time", 3, 8, 0).decode("00:00:00")).isEqualTo(Duration.ZERO);
        SqlServerColumn dto = column("datetimeoffset", 10, 34, 7);
        assertThat(dto.valueType().kind()).isEqualTo(ValueKind.TEXT);
        assertThat(dto.decode("2026-07-20 12:34:56.1234567 +02:00")).isEqualTo("2026-07-20T12:34:56.1234567+02:00");
        assertThat(dto.decode("2026-07-20 12:34:56.0000000 -14:00")).isEqualTo("2026-07-20T12:34:56.0000000-14:00");
        assertThat(column("datetimeoffset", 8, 26, 0).decode("2026-07-20 12:34:56 +00:00"))
                .isEqualTo("2026-07-20T12:34:56+00:00");
        assertThatThrownBy(() -> column("datetime2", 7, 23, 3).decode("2026-07-20 12:34:56.0551"))
                .hasMessageContaining("scale 3");
        assertThatThrownBy(() -> dt2.decode("2026-07-20")).hasMessageContaining("Not a SQL Server datetime");
    }

    @Test
    void textBinaryUuidXmlAndRowversion() {
        assertThat(column("nvarchar", 510, 0, 0).dataType()).isEqualTo("nvarchar(255)");
        assertThat(column("nvarchar", -1, 0, 0).dataType()).isEqualTo("nvarchar(max)");
        assertThat(column("nchar", 20, 0, 0).decode("😀 ünï")).isEqualTo("😀 ünï");
        assertThat(column("xml", -1, 0, 0).decode("<a b=\"1\"/>")).isEqualTo("<a b=\"1\"/>");
        byte[] bytes = {(byte) 0xDE, (byte) 0xAD, 0, (byte) 0xEF};
        assertThat((byte[]) column("varbinary", 8000, 0, 0).decode(bytes)).containsExactly(bytes);
        assertThat(column("timestamp", 8, 0, 0).dataType()).isEqualTo("rowversion");
        assertThat(column("image", 16, 0, 0).valueType().kind()).isEqualTo(ValueKind.BYTES);
        assertThat(column("uniqueidentifier", 16, 0, 0).decode("6F9619FF-8B86-D011-B42D-00C04FC964FF"))
                .isEqualTo(UUID.fromString("6f9619ff-8b86-d011-b42d-00c04fc964ff"));
    }

    @Test
    void sqlVariantAndClrTypesAreRefusedByName() {
        assertThatThrownBy(() -> SqlServerColumn.of("dbo.t", "v", "sql_variant", 8016, 0, 0, true))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("Table dbo.t column v is of type sql_variant")
                .hasMessageContaining("each value carries a type of its own")
                .hasMessageContaining("ALTER TABLE dbo.t ALTER COLUMN [v]");
        assertThatThrownBy(() -> SqlServerColumn.of("dbo.t", "g", "geography", -1, 0, 0, true))
                .hasMessageContaining("CLR type");
        assertThatThrownBy(() -> SqlServerColumn.of("dbo.t", "x", "vector", 8, 0, 0, true))
                .hasMessageContaining("which this connector does not know");
    }

    @Test
    void randomDatetime2AndTimeValuesRoundTripThroughStyle121() {
        long seed = Long.getLong("rustcdc.sqlserver.seed", System.nanoTime());
        System.out.println("SqlServerValuesTest seed " + seed + " (replay with -Drustcdc.sqlserver.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int i = 0; i < 5_000; i++) {
            int scale = random.nextInt(8);
            long unit = (long) Math.pow(10, 9 - scale);
            LocalDateTime value = LocalDateTime.of(1 + random.nextInt(9999), 1 + random.nextInt(12),
                    1 + random.nextInt(28), random.nextInt(24), random.nextInt(60), random.nextInt(60),
                    (int) (random.nextInt((int) (1_000_000_000L / unit)) * unit));
            String nanos = String.format("%09d", value.getNano());
            String text = String.format("%04d-%02d-%02d %02d:%02d:%02d", value.getYear(), value.getMonthValue(),
                    value.getDayOfMonth(), value.getHour(), value.getMinute(), value.getSecond())
                    + (scale == 0 ? "" : "." + nanos.substring(0, scale));
            assertThat(column("datetime2", 8, 27, scale).decode(text)).as("seed %d: %s", seed, text).isEqualTo(value);
            assertThat(column("time", 5, 16, scale).decode(text.substring(11))).as("seed %d: %s", seed, text)
                    .isEqualTo(Duration.ofNanos(value.toLocalTime().toNanoOfDay()));
        }
    }
}
