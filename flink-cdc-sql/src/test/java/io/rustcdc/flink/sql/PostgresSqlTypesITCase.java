package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The type table end to end in Flink SQL: a snapshot row and a stream row of the same values are equal. */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresSqlTypesITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final String VALUES = "32767, 2147483647, 9223372036854775807, 99999999.9999, "
            + "'123456789012345678901234567890.123456789012345678901', 3.4028235e38, 1.7976931348623157e308, true, "
            + "E'h\\u00e9llo \\t', 'abc', '\\x00ff10', '{\"b\": 1, \"a\": [1, 2.50]}', '0044-03-15 BC', '23:59:59.123', "
            + "'2024-03-30 23:30:00.123456', '2024-03-30 23:30:00.123456+02', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', "
            + "'1 year 2 mons', 'happy', '{1,NULL,3}', '{\"a b\",NULL}'";

    private PostgresDatabase db;
    private StreamTableEnvironment tables;

    @BeforeEach
    void setUp(PostgresDatabase db) {
        this.db = db;
        // no restarts, set on the environment itself: a job that fails must end, never retry while a test waits
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(1);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
        tables.getConfig().set("table.local-time-zone", "UTC");
    }

    private String with(String table, String slot) {
        return SqlTestTables.with(db, table, slot, "");
    }

    @Test
    void snapshotAndStreamRowsOfTheSameValuesAreEqual() throws Exception {
        db.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')",
                "CREATE TABLE typed (id int PRIMARY KEY, c_int2 smallint, c_int4 integer, c_int8 bigint, "
                        + "c_num numeric(12,4), c_num_free numeric, c_real real, c_double double precision, c_bool boolean, "
                        + "c_text text, c_varchar varchar(10), c_bytea bytea, c_jsonb jsonb, c_date date, c_time time(3), "
                        + "c_ts timestamp(6), c_tstz timestamptz(6), c_uuid uuid, c_interval interval, c_enum mood, "
                        + "c_int_arr int[], c_text_arr text[])",
                "ALTER TABLE typed REPLICA IDENTITY FULL", "ALTER TABLE typed OWNER TO " + db.replicationUser(),
                "INSERT INTO typed VALUES (1, " + VALUES + ")", "INSERT INTO typed (id) VALUES (3)");
        tables.executeSql("CREATE TABLE typed (id INT, c_int2 SMALLINT, c_int4 INT, c_int8 BIGINT, c_num DECIMAL(12,4), "
                + "c_num_free STRING, c_real FLOAT, c_double DOUBLE, c_bool BOOLEAN, c_text STRING, c_varchar STRING, "
                + "c_bytea BYTES, c_jsonb STRING, c_date DATE, c_time TIME(3), c_ts TIMESTAMP(6), c_tstz TIMESTAMP_LTZ(6), "
                + "c_uuid STRING, c_interval STRING, c_enum STRING, c_int_arr ARRAY<INT>, c_text_arr ARRAY<STRING>, "
                + "PRIMARY KEY (id) NOT ENFORCED) " + with("public.typed", "sql_types"));
        Row snapshot;
        Row stream;
        Row nulls;
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM typed").collect()) {
            Row first = it.next();
            Row second = it.next();
            snapshot = (Integer) first.getField("id") == 1 ? first : second;
            nulls = snapshot == first ? second : first;
            db.execute("INSERT INTO typed VALUES (2, " + VALUES + ")");
            stream = it.next();
        }
        assertThat(stream.getField("id")).isEqualTo(2);
        for (String field : snapshot.getFieldNames(true)) {
            if (!field.equals("id")) {
                assertThat(stream.getField(field)).as(field).usingRecursiveComparison().isEqualTo(snapshot.getField(field));
            }
        }
        assertThat(snapshot.getField("c_int8")).isEqualTo(Long.MAX_VALUE);
        assertThat(snapshot.getField("c_num")).isEqualTo(new BigDecimal("99999999.9999"));
        assertThat(snapshot.getField("c_num_free")).isEqualTo("123456789012345678901234567890.123456789012345678901");
        assertThat(snapshot.getField("c_real")).isEqualTo(3.4028235e38f);
        assertThat(snapshot.getField("c_text")).isEqualTo("h\u00e9llo \t");
        assertThat((byte[]) snapshot.getField("c_bytea")).containsExactly(0, 0xff, 0x10);
        assertThat(snapshot.getField("c_jsonb")).isEqualTo("{\"a\": [1, 2.50], \"b\": 1}");
        assertThat(snapshot.getField("c_date")).isEqualTo(LocalDate.of(-43, 3, 15));
        assertThat(snapshot.getField("c_time")).isEqualTo(LocalTime.of(23, 59, 59, 123_000_000));
        assertThat(snapshot.getField("c_ts")).isEqualTo(LocalDateTime.of(2024, 3, 30, 23, 30, 0, 123_456_000));
        assertThat(snapshot.getField("c_tstz")).isEqualTo(Instant.parse("2024-03-30T21:30:00.123456Z"));
        assertThat(snapshot.getField("c_uuid")).isEqualTo("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        assertThat(snapshot.getField("c_enum")).isEqualTo("happy");
        assertThat((Integer[]) snapshot.getField("c_int_arr")).containsExactly(1, null, 3);
        assertThat((String[]) snapshot.getField("c_text_arr")).containsExactly("a b", null);
        for (String field : nulls.getFieldNames(true)) {
            if (!field.equals("id")) {
                assertThat(nulls.getField(field)).as(field).isNull();
            }
        }
    }

    @Test
    void aNumericNaNInADecimalFailsNamingTableColumnAndTypesNotTheValue() {
        db.execute("CREATE TABLE nan (id int PRIMARY KEY, n numeric(5,2))", "ALTER TABLE nan REPLICA IDENTITY FULL",
                "ALTER TABLE nan OWNER TO " + db.replicationUser(), "INSERT INTO nan VALUES (1, 'NaN')");
        tables.executeSql("CREATE TABLE nan (id INT, n DECIMAL(5,2)) " + with("public.nan", "sql_nan"));
        assertThatThrownBy(() -> {
            try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM nan").collect()) {
                it.next();
            }
        }).satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                .contains("Column n of public.nan (DECIMAL(5, 2)) received NaN or an infinity, which DECIMAL cannot hold")
                .contains("nothing is rounded, truncated or nulled"));
    }

    @Test
    void aTimeWithMicrosecondsFailsInsteadOfBeingTruncated() {
        db.execute("CREATE TABLE micros (id int PRIMARY KEY, t time(6))", "ALTER TABLE micros REPLICA IDENTITY FULL",
                "ALTER TABLE micros OWNER TO " + db.replicationUser(), "INSERT INTO micros VALUES (1, '12:00:00.000001')");
        tables.executeSql("CREATE TABLE micros (id INT, t TIME(3)) " + with("public.micros", "sql_micros"));
        assertThatThrownBy(() -> {
            try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM micros").collect()) {
                it.next();
            }
        }).satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                .contains("Column t of public.micros (TIME(3)) received a time finer than the declared precision")
                .doesNotContain("12:00:00.000001"));
    }
}
