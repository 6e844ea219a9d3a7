package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every PostgreSQL row of the type table, read by a snapshot chunk and from the stream: both give
 * equal rows, and the values are the exact ones stored.
 */
@ExtendWith(PostgresExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class PostgresTypesITCase {
    private final Map<Integer, Row> snapshot = new HashMap<>();
    private final Map<Integer, Row> stream = new HashMap<>();
    private TableDescription description;
    private RowShape streamShape;

    @BeforeAll
    void captureBothWays(PostgresDatabase db) throws Exception {
        db.execute(
                "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
                "CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0)",
                "CREATE TABLE all_types (id int PRIMARY KEY, c_int2 smallint, c_int4 integer, c_int8 bigint, "
                        + "c_num numeric(12,4), c_num_free numeric, c_real real, c_double double precision, c_bool boolean, "
                        + "c_text text, c_varchar varchar(10), c_char char(5), c_bytea bytea, c_json json, c_jsonb jsonb, "
                        + "c_date date, c_time time(3), c_time_free time, c_timetz timetz, c_ts timestamp(6), "
                        + "c_ts_free timestamp, c_tstz timestamptz, c_tstz3 timestamptz(3), c_uuid uuid, c_interval interval, "
                        + "c_inet inet, c_enum mood, c_domain positive_int, c_int_arr int[], c_int_arr2 int[][], "
                        + "c_text_arr text[], c_num_arr numeric(5,2)[], c_ts_arr timestamp(3)[])",
                "ALTER TABLE all_types OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, "types_slot"));
        TableId table = TableId.of(db.name(), "public", "all_types");
        PostgresPosition start;
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
        }
        db.execute(
                "INSERT INTO all_types VALUES (1, 32767, 2147483647, 9223372036854775807, 99999999.9999, "
                        + "'123456789012345678901234567890.123456789012345678901', 3.4028235e38, 1.7976931348623157e308, true, "
                        + "E'h\u00e9llo \uD83C\uDF89 \"q\" \\t tab\\nnl \\\\ back', 'abc', 'ab', '\\x00ff10', "
                        + "'{\"a\": [1, 2.50, null]}', '{\"b\": 1, \"a\": \"x\"}', '2024-03-30', '23:59:59.123', '24:00:00', "
                        + "'12:00:00+05:30', '2024-03-30 23:30:00.123456', '2024-03-30 23:30:00', "
                        + "'2024-03-30 23:30:00.123456+00', '2024-03-30 23:30:00.123+02', "
                        + "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '1 year 2 mons 3 days 04:05:06.7', '192.168.0.1/24', "
                        + "'happy', 42, '{1,NULL,3}', '{{1,2},{3,4}}', '{\"a b\",\"c\\\"d\",NULL,\"NULL\",\"\"}', "
                        + "'{1.50,NULL}', '{\"2024-01-01 10:00:00.5\"}')",
                "INSERT INTO all_types VALUES (2, -32768, -2147483648, -9223372036854775808, 'NaN', 'Infinity', "
                        + "'-Infinity', 'NaN', false, '', '', '', '\\x', 'null', '[]', 'infinity', '00:00:00', "
                        + "'00:00:00.000001', '00:00:00-12', '-infinity', '0044-03-15 12:00:00 BC', 'infinity', "
                        + "'-infinity', '00000000-0000-0000-0000-000000000000', '-1 days', '::1', 'sad', 1, '{}', '{}', "
                        + "'{}', '{}', '{}')",
                "INSERT INTO all_types (id) VALUES (3)",
                "INSERT INTO all_types (id, c_num_free, c_date, c_ts, c_tstz, c_real, c_double) VALUES (4, '-Infinity', "
                        + "'5874897-12-31', '294276-12-31 23:59:59.999999', '4713-01-01 00:00:00+00 BC', 1.5e-45, 5e-324)");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            description = session.describe(table);
            session.readChunk(description, List.of("id"), null, null,
                    e -> snapshot.put(((Long) e.after().get("id")).intValue(), e.after()));
        }
        try (ChangeStream<PostgresPosition> changes = connector.openStream(start, TableFilter.all())) {
            for (ChangeEvent e : StreamTestSupport.events(changes, 4)) {
                assertThat(e.op()).isEqualTo(Op.INSERT);
                stream.put(((Long) e.after().get("id")).intValue(), e.after());
                streamShape = e.shape();
            }
        }
    }

    @Test
    void snapshotAndStreamGiveEqualRowsAndShapes() {
        assertThat(snapshot.keySet()).containsExactlyInAnyOrder(1, 2, 3, 4);
        for (int id : snapshot.keySet()) {
            assertThat(stream.get(id)).as("row %d", id).isEqualTo(snapshot.get(id));
        }
        assertThat(streamShape).isEqualTo(description.shape());
    }

    @Test
    void shapeHasDeclaredTypesNullabilityAndKey() {
        RowShape shape = description.shape();
        assertThat(shape.primaryKey()).containsExactly("id");
        assertThat(shape.column("id").get().nullable()).isFalse();
        assertThat(shape.column("c_num").get().dataType()).isEqualTo("numeric(12,4)");
        assertThat(shape.column("c_varchar").get().dataType()).isEqualTo("character varying(10)");
        assertThat(shape.column("c_time").get().dataType()).isEqualTo("time(3) without time zone");
        assertThat(shape.column("c_tstz3").get().dataType()).isEqualTo("timestamp(3) with time zone");
        assertThat(shape.column("c_enum").get().dataType()).isEqualTo("mood");
        assertThat(shape.column("c_domain").get().dataType()).isEqualTo("positive_int");
        assertThat(shape.column("c_int_arr2").get().dataType()).isEqualTo("integer[]");
        assertThat(shape.column("c_text").get().nullable()).isTrue();
    }

    @Test
    void integersAndNumbers() {
        Row r1 = snapshot.get(1);
        Row r2 = snapshot.get(2);
        assertThat(r1.get("c_int2")).isEqualTo(32767L);
        assertThat(r1.get("c_int4")).isEqualTo(2147483647L);
        assertThat(r1.get("c_int8")).isEqualTo(Long.MAX_VALUE);
        assertThat(r2.get("c_int8")).isEqualTo(Long.MIN_VALUE);
        assertThat(r1.get("c_num")).isEqualTo(new BigDecimal("99999999.9999"));
        assertThat(((BigDecimal) r1.get("c_num")).scale()).isEqualTo(4);
        assertThat(r1.get("c_num_free")).isEqualTo(new BigDecimal("123456789012345678901234567890.123456789012345678901"));
        assertThat(r2.get("c_num")).isEqualTo(SpecialValue.NAN);
        assertThat(r2.get("c_num_free")).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(snapshot.get(4).get("c_num_free")).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(r1.get("c_real")).isEqualTo(3.4028235e38f);
        assertThat(r1.get("c_double")).isEqualTo(1.7976931348623157e308);
        assertThat(r2.get("c_real")).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat((Double) r2.get("c_double")).isNaN();
        assertThat(snapshot.get(4).get("c_real")).isEqualTo(1.4e-45f);
        assertThat(snapshot.get(4).get("c_double")).isEqualTo(4.9e-324);
        assertThat(r1.get("c_bool")).isEqualTo(true);
        assertThat(r2.get("c_bool")).isEqualTo(false);
    }

    @Test
    void textBytesJson() {
        Row r1 = snapshot.get(1);
        Row r2 = snapshot.get(2);
        assertThat(r1.get("c_text")).isEqualTo("h\u00e9llo \uD83C\uDF89 \"q\" \t tab\nnl \\ back");
        assertThat(r1.get("c_char")).isEqualTo("ab   ");
        assertThat(r2.get("c_text")).isEqualTo("");
        assertThat((byte[]) r1.get("c_bytea")).isEqualTo(HexFormat.of().parseHex("00ff10"));
        assertThat((byte[]) r2.get("c_bytea")).isEmpty();
        assertThat(r1.get("c_json")).isEqualTo("{\"a\": [1, 2.50, null]}");
        assertThat(r1.get("c_jsonb")).isEqualTo("{\"a\": \"x\", \"b\": 1}");
        assertThat(r2.get("c_json")).isEqualTo("null");
        assertThat(snapshot.get(3).get("c_json")).isNull();
        assertThat(r1.get("c_uuid")).isEqualTo(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
        assertThat(r1.get("c_interval")).isEqualTo("1 year 2 mons 3 days 04:05:06.7");
        assertThat(r1.get("c_inet")).isEqualTo("192.168.0.1/24");
        assertThat(r1.get("c_enum")).isEqualTo("happy");
        assertThat(r1.get("c_domain")).isEqualTo("42");
        assertThat(r1.get("c_timetz")).isEqualTo("12:00:00+05:30");
    }

    @Test
    void datesTimesAndTimestamps() {
        Row r1 = snapshot.get(1);
        Row r2 = snapshot.get(2);
        Row r4 = snapshot.get(4);
        assertThat(r1.get("c_date")).isEqualTo(LocalDate.of(2024, 3, 30));
        assertThat(r2.get("c_date")).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(r4.get("c_date")).isEqualTo(LocalDate.of(5874897, 12, 31));
        assertThat(r1.get("c_time")).isEqualTo(Duration.parse("PT23H59M59.123S"));
        assertThat(r1.get("c_time_free")).isEqualTo(Duration.ofHours(24));
        assertThat(r2.get("c_time_free")).isEqualTo(Duration.ofNanos(1000));
        assertThat(r1.get("c_ts")).isEqualTo(LocalDateTime.of(2024, 3, 30, 23, 30, 0, 123_456_000));
        assertThat(r2.get("c_ts")).isEqualTo(SpecialValue.NEGATIVE_INFINITY);
        assertThat(r2.get("c_ts_free")).isEqualTo(LocalDateTime.of(-43, 3, 15, 12, 0));
        assertThat(r4.get("c_ts")).isEqualTo(LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000));
        assertThat(r1.get("c_tstz")).isEqualTo(Instant.parse("2024-03-30T23:30:00.123456Z"));
        assertThat(r1.get("c_tstz3")).isEqualTo(Instant.parse("2024-03-30T21:30:00.123Z"));
        assertThat(r2.get("c_tstz")).isEqualTo(SpecialValue.POSITIVE_INFINITY);
        assertThat(r4.get("c_tstz")).isEqualTo(LocalDateTime.of(-4712, 1, 1, 0, 0).toInstant(java.time.ZoneOffset.UTC));
        assertThat(description.rowType().type(description.rowType().indexOf("c_time")).precision()).isEqualTo(3);
    }

    @Test
    void arrays() {
        Row r1 = snapshot.get(1);
        Row r2 = snapshot.get(2);
        assertThat(r1.get("c_int_arr")).isEqualTo(Arrays.asList(1L, null, 3L));
        assertThat(r1.get("c_int_arr2")).isEqualTo(List.of(List.of(1L, 2L), List.of(3L, 4L)));
        assertThat(r1.get("c_text_arr")).isEqualTo(Arrays.asList("a b", "c\"d", null, "NULL", ""));
        assertThat(r1.get("c_num_arr")).isEqualTo(Arrays.asList(new BigDecimal("1.50"), null));
        assertThat(r1.get("c_ts_arr")).isEqualTo(List.of(LocalDateTime.of(2024, 1, 1, 10, 0, 0, 500_000_000)));
        assertThat(r2.get("c_int_arr")).isEqualTo(new ArrayList<>());
        assertThat(snapshot.get(3).get("c_int_arr")).isNull();
        assertThat(description.rowType().type(description.rowType().indexOf("c_int_arr")).element().kind())
                .isEqualTo(ValueKind.INTEGER);
    }
}
