package io.rustcdc.flink.sqlserver.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.sqlserver.Lsn;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * Commit times from {@code cdc.lsn_time_mapping.tran_end_time} as {@code CONVERT(varchar(23), value,
 * 121)} prints a datetime (recorded texts), at the server's fixed offset.
 */
class CommitClockTest {
    private static final Lsn COMMIT = Lsn.parse("0000002D:000001A8:0003");

    @Test
    void aDatetimeIsReadAsSqlServerPrintsItAtTheOffset() {
        CommitClock utc = new CommitClock(ZoneOffset.UTC);
        assertThat(utc.commitTime("2026-07-20 12:34:56.997", COMMIT, "dbo_orders"))
                .isEqualTo(Instant.parse("2026-07-20T12:34:56.997Z"));
        assertThat(utc.commitTime("2026-07-20 12:34:56.003", COMMIT, "dbo_orders"))
                .isEqualTo(Instant.parse("2026-07-20T12:34:56.003Z"));
        assertThat(new CommitClock(ZoneOffset.ofHours(2)).commitTime("2026-07-20 00:10:00.000", COMMIT, "dbo_orders"))
                .isEqualTo(Instant.parse("2026-07-19T22:10:00Z"));
        assertThat(new CommitClock(ZoneOffset.ofHoursMinutes(-3, -30)).commitTime("1753-01-01 00:00:00.000", COMMIT,
                "dbo_orders")).isEqualTo(Instant.parse("1753-01-01T03:30:00Z"));
    }

    @Test
    void aMissingOrUnreadableTimeFailsNamingTheCommit() {
        CommitClock utc = new CommitClock(ZoneOffset.UTC);
        assertThatThrownBy(() -> utc.commitTime(null, COMMIT, "dbo_orders")).isInstanceOf(CdcException.class)
                .hasMessageContaining("cdc.lsn_time_mapping has no row for commit 0000002D:000001A8:0003 of a change "
                        + "in capture instance 'dbo_orders'")
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.STATE));
        assertThatThrownBy(() -> utc.commitTime("2026-07-20 12:34:56.0031", COMMIT, "dbo_orders"))
                .hasMessageContaining("tran_end_time of commit 0000002D:000001A8:0003 is '2026-07-20 12:34:56.0031'");
    }

    @Test
    void theServerMustRunAtTheConfiguredOffset() {
        new CommitClock(ZoneOffset.UTC).requireServerOffset(0, "server-time-zone");
        new CommitClock(ZoneOffset.ofHoursMinutes(5, 30)).requireServerOffset(330, "server-time-zone");
        assertThatThrownBy(() -> new CommitClock(ZoneOffset.UTC).requireServerOffset(60, "server-time-zone"))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("SQL Server's clock runs at UTC+01:00 now, but 'server-time-zone' says UTC+00:00")
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
    }
}
