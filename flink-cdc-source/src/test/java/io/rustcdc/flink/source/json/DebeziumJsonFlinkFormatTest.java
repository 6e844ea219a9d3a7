package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.debezium.DebeziumJsonDeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

/**
 * Flink's own {@code debezium-json} format (flink-json) reads the envelope {@link DebeziumJsonRenderer}
 * writes: the row kinds of reads, inserts, updates and deletes, and every value of the types it maps,
 * exact. Replay: -Drustcdc.debezium.seed=N.
 */
class DebeziumJsonFlinkFormatTest {
    private static final RowType TYPE = RowType.of(List.of("id", "amount", "big", "note", "day", "at", "at_utc"),
            List.of(ValueType.of(ValueKind.INTEGER), ValueType.of(ValueKind.DECIMAL), ValueType.of(ValueKind.BIGINT),
                    ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.DATE), ValueType.of(ValueKind.TIMESTAMP),
                    ValueType.of(ValueKind.TIMESTAMP_TZ)));
    private static final DataType FLINK_TYPE = DataTypes.ROW(DataTypes.FIELD("id", DataTypes.INT()),
            DataTypes.FIELD("amount", DataTypes.DECIMAL(20, 4)), DataTypes.FIELD("big", DataTypes.BIGINT()),
            DataTypes.FIELD("note", DataTypes.STRING()), DataTypes.FIELD("day", DataTypes.DATE()),
            DataTypes.FIELD("at", DataTypes.TIMESTAMP(6)), DataTypes.FIELD("at_utc", DataTypes.TIMESTAMP_LTZ(6)));
    private static final SourcePosition POSITION = new SourcePosition() {
        @Override
        public String toString() {
            return "0/1";
        }
    };

    @Test
    void flinksDebeziumJsonFormatReadsTheEnvelope() throws Exception {
        long seed = Long.getLong("rustcdc.debezium.seed", System.nanoTime());
        System.out.println("DebeziumJsonFlinkFormatTest seed " + seed + " (replay with -Drustcdc.debezium.seed=" + seed + ")");
        Random random = new Random(seed);
        DebeziumJsonDeserializationSchema format = new DebeziumJsonDeserializationSchema(FLINK_TYPE, List.of(),
                TypeInformation.of(RowData.class), false, false, TimestampFormat.ISO_8601);
        format.open(new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return new UnregisteredMetricsGroup();
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
            }
        });
        DebeziumJsonRenderer renderer = DebeziumJsonRenderer.create();
        TableId table = TableId.of("shop", "public", "orders");
        for (int i = 0; i < 500; i++) {
            Row before = row(random);
            Row after = row(random);
            Op op = new Op[] {Op.READ, Op.INSERT, Op.UPDATE, Op.DELETE}[random.nextInt(4)];
            SourceInfo source = op == Op.READ ? SourceInfo.snapshot("postgres", null)
                    : SourceInfo.stream("postgres", POSITION, Instant.ofEpochSecond(1_700_000_000L + i));
            ChangeEvent event = ChangeEvent.builder(op, table, source)
                    .before(op == Op.UPDATE || op == Op.DELETE ? before : null)
                    .after(op == Op.DELETE ? null : after)
                    .transaction(op == Op.READ ? null : TransactionInfo.of("7" + i, 1, 1)).build();
            String json = renderer.render(event);
            List<RowData> read = new ArrayList<>();
            format.deserialize(json.getBytes(StandardCharsets.UTF_8), new Collector<>() {
                @Override
                public void collect(RowData record) {
                    read.add(record);
                }

                @Override
                public void close() {}
            });
            String context = "seed " + seed + " event " + i + ": " + json;
            switch (op) {
                case UPDATE:
                    assertThat(read).as(context).hasSize(2);
                    assertRow(read.get(0), RowKind.UPDATE_BEFORE, before, context);
                    assertRow(read.get(1), RowKind.UPDATE_AFTER, after, context);
                    break;
                case DELETE:
                    assertThat(read).as(context).hasSize(1);
                    assertRow(read.get(0), RowKind.DELETE, before, context);
                    break;
                default:
                    assertThat(read).as(context).hasSize(1);
                    assertRow(read.get(0), RowKind.INSERT, after, context);
            }
        }
    }

    private static Row row(Random random) {
        return Row.of(TYPE, (long) random.nextInt(),
                new BigDecimal(new BigInteger(60, random), 4).multiply(BigDecimal.valueOf(random.nextBoolean() ? 1 : -1)),
                random.nextLong(), random.nextInt(5) == 0 ? null : text(random),
                LocalDate.ofEpochDay(random.nextInt(2_000_000) - 700_000),
                LocalDateTime.of(1 + random.nextInt(9998), 1 + random.nextInt(12), 1 + random.nextInt(28),
                        random.nextInt(24), random.nextInt(60), random.nextInt(60), random.nextInt(1_000_000) * 1000),
                Instant.ofEpochSecond(random.nextInt(2_000_000_000) * (random.nextBoolean() ? 1L : -1L),
                        random.nextInt(1_000_000) * 1000));
    }

    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            s.appendCodePoint(random.nextInt(4) == 0 ? 0x1F600 + random.nextInt(40) : 0x20 + random.nextInt(0x2000));
        }
        return s.toString();
    }

    private static void assertRow(RowData actual, RowKind kind, Row expected, String context) {
        assertThat(actual.getRowKind()).as(context).isEqualTo(kind);
        assertThat((long) actual.getInt(0)).as(context).isEqualTo(expected.get(0));
        assertThat(actual.getDecimal(1, 20, 4)).as(context)
                .isEqualTo(DecimalData.fromBigDecimal((BigDecimal) expected.get(1), 20, 4));
        assertThat(actual.getLong(2)).as(context).isEqualTo(expected.get(2));
        assertThat(actual.isNullAt(3) ? null : actual.getString(3)).as(context)
                .isEqualTo(expected.get(3) == null ? null : StringData.fromString((String) expected.get(3)));
        assertThat(LocalDate.ofEpochDay(actual.getInt(4))).as(context).isEqualTo(expected.get(4));
        assertThat(actual.getTimestamp(5, 6)).as(context)
                .isEqualTo(TimestampData.fromLocalDateTime((LocalDateTime) expected.get(5)));
        assertThat(actual.getTimestamp(6, 6).toInstant()).as(context).isEqualTo(expected.get(6));
    }
}
