package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class SqlServerSourceConfigTest {
    private static SqlServerSourceConfig.Builder valid() {
        return SqlServerSourceConfig.builder().hostname("db").username("cdc").password(Secret.of("s3cret!"))
                .database("shop");
    }

    @Test
    void readsOptionsAndHidesThePassword() {
        Configuration options = new Configuration();
        options.setString("hostname", "db");
        options.setString("username", "cdc");
        options.setString("password", "s3cret!");
        options.setString("database-name", "shop");
        options.setString("stream.max-events-per-poll", "5");
        SqlServerSourceConfig config = SqlServerSourceConfig.fromConfiguration(options);
        assertThat(config.connection().port()).isEqualTo(1433);
        assertThat(config.cdcSchema()).isEqualTo("cdc");
        assertThat(config.maxEventsPerPoll()).isEqualTo(5);
        assertThat(config.pollInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.toString()).doesNotContain("s3cret!").contains("database=shop");
    }

    @Test
    void refusesWhatCannotWorkNamingTheOption() {
        assertThatThrownBy(() -> valid().database(null).build()).isInstanceOf(CdcException.class)
                .hasMessageContaining("'database-name' is required");
        assertThatThrownBy(() -> valid().maxEventsPerPoll(1).build())
                .hasMessageContaining("'stream.max-events-per-poll' must be 2 to 100000, not 1");
        assertThatThrownBy(() -> valid().pollInterval(Duration.ofMinutes(2)).build())
                .hasMessageContaining("'stream.poll-interval' must be 1 ms to 60 s");
        assertThatThrownBy(() -> valid().captureTruncateEvents(true).build())
                .hasMessageContaining("'capture-truncate-events' = true is refused: SQL Server refuses TRUNCATE TABLE "
                        + "on a table with CDC enabled (error 4711");
        assertThatThrownBy(() -> valid().metricsInterval(Duration.ofMillis(500)).build())
                .hasMessageContaining("'stream.metrics-interval' must be 1 s to 10 min");
        assertThatThrownBy(() -> valid().cdcSchema(" ").build()).hasMessageContaining("'cdc.schema'");
    }

    /** Commit times need the server's offset, and only a fixed one maps every local time to one instant. */
    @Test
    void serverTimeZoneTakesOnlyAFixedOffset() {
        assertThat(valid().build().serverTimeZone()).isNull();
        assertThat(valid().serverTimeZone("UTC").build().serverTimeZone()).isEqualTo(ZoneOffset.UTC);
        assertThat(valid().serverTimeZone("+02:00").build().serverTimeZone()).isEqualTo(ZoneOffset.ofHours(2));
        assertThat(valid().serverTimeZone("Etc/GMT+5").build().serverTimeZone()).isEqualTo(ZoneOffset.ofHours(-5));
        assertThat(valid().serverTimeZone("+02:00").build().toString()).contains("server-time-zone=+02:00");
        assertThatThrownBy(() -> valid().serverTimeZone("Europe/Berlin").build()).isInstanceOf(CdcException.class)
                .hasMessageContaining("'server-time-zone' = 'Europe/Berlin' has daylight saving time")
                .hasMessageContaining("leave the option unset");
        assertThatThrownBy(() -> valid().serverTimeZone("Mars/Olympus").build())
                .hasMessageContaining("'server-time-zone' = 'Mars/Olympus' is not a time zone");
        Configuration options = new Configuration();
        options.setString("hostname", "db");
        options.setString("username", "cdc");
        options.setString("password", "s3cret!");
        options.setString("database-name", "shop");
        options.setString("server-time-zone", "-03:30");
        options.setString("stream.metrics-interval", "2 s");
        SqlServerSourceConfig config = SqlServerSourceConfig.fromConfiguration(options);
        assertThat(config.serverTimeZone()).isEqualTo(ZoneOffset.ofHoursMinutes(-3, -30));
        assertThat(config.metricsInterval()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void theStreamMarksTransactionEnds() {
        assertThat(SqlServerConnector.create(valid().build()).marksTransactionEnds()).isTrue();
    }

    @Test
    void chunkRangesAreWrittenOutColumnByColumn() {
        List<SqlServerColumn> keys = List.of(SqlServerColumn.of("dbo.t", "a", "int", 4, 10, 0, false),
                SqlServerColumn.of("dbo.t", "b]", "datetime2", 8, 27, 7, false));
        assertThat(SqlServerSql.after(keys)).isEqualTo("[a] >= CAST(? AS int) AND (([a] > CAST(? AS int)) OR ([a] = "
                + "CAST(? AS int) AND [b]]] > CAST(? AS datetime2(7))))");
        assertThat(SqlServerSql.atMost(keys)).isEqualTo("[a] <= CAST(? AS int) AND (([a] < CAST(? AS int)) OR ([a] = "
                + "CAST(? AS int) AND [b]]] < CAST(? AS datetime2(7))) OR ([a] = CAST(? AS int) AND [b]]] = "
                + "CAST(? AS datetime2(7))))");
        assertThat(SqlServerSql.qualified(TableId.of("shop", "dbo", "or[d]ers"))).isEqualTo("[dbo].[or[d]]ers]");
        assertThat(SqlServerSql.text(keys.get(1), java.time.LocalDateTime.of(2026, 1, 2, 3, 4, 5, 600)))
                .isEqualTo("2026-01-02 03:04:05.0000006");
    }

    /** Every placeholder of a key range gets its value, in order (a recording statement, not a database). */
    @Test
    void keyRangesBindAValuePerPlaceholder() throws Exception {
        List<SqlServerColumn> keys = List.of(SqlServerColumn.of("dbo.t", "a", "int", 4, 10, 0, false),
                SqlServerColumn.of("dbo.t", "b", "bigint", 8, 19, 0, false),
                SqlServerColumn.of("dbo.t", "c", "uniqueidentifier", 16, 0, 0, false));
        Object[] key = {1L, 2L, java.util.UUID.fromString("00000000-0000-0000-0000-000000000003")};
        for (boolean orEqual : new boolean[] {false, true}) {
            String sql = orEqual ? SqlServerSql.atMost(keys) : SqlServerSql.after(keys);
            List<Object> bound = new java.util.ArrayList<>();
            java.sql.PreparedStatement recording = (java.sql.PreparedStatement) java.lang.reflect.Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {java.sql.PreparedStatement.class},
                    (proxy, method, args) -> {
                        assertThat((int) args[0]).isEqualTo(bound.size() + 1);
                        bound.add(args[1]);
                        return null;
                    });
            int next = SqlServerSql.bindTuple(recording, 1, keys, key, orEqual);
            assertThat(bound).hasSize(sql.length() - sql.replace("?", "").length()).hasSize(next - 1);
            assertThat(bound.get(0)).isEqualTo(1L); // the first column's bound
            assertThat(bound.get(bound.size() - 1)).isEqualTo("00000000-0000-0000-0000-000000000003"); // as text
        }
    }

    @Test
    void aChunkReflectsTheChangesAtOrBelowItsMark() {
        SqlServerConnector connector = SqlServerConnector.create(valid().build());
        Lsn end = Lsn.parse("00000020:00000100:0004");
        for (SqlServerChunkMark mark : List.of(SqlServerChunkMark.of(end, 581577110), SqlServerChunkMark.withoutObject(end))) {
            assertThat(connector.reflects(mark, SqlServerPosition.afterCommit(end))).isTrue();
            assertThat(connector.reflects(mark, SqlServerPosition.afterChange(end, 3,
                    Lsn.parse("00000020:000000F0:0001"), ChangeOperation.INSERT))).isTrue();
            assertThat(connector.reflects(mark, SqlServerPosition.afterCommit(Lsn.parse("00000020:00000100:0005"))))
                    .isFalse();
            assertThat(connector.reflects(mark, SqlServerPosition.afterChange(Lsn.parse("00000020:00000100:0005"), 0,
                    Lsn.parse("00000020:00000100:0005"), ChangeOperation.INSERT))).isFalse();
            assertThat(connector.handoffEnd(mark)).isEqualTo(SqlServerPosition.afterCommit(end));
        }
        assertThat(connector.parsePosition("00000020:00000100:0004")).isEqualTo(SqlServerPosition.afterCommit(end));
    }
}
