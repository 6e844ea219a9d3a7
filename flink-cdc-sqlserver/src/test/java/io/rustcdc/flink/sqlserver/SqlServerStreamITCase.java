package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The change stream on a real SQL Server (skipped without one, see {@link SqlServerDatabase}). */
@ExtendWith(SqlServerExtension.class)
@Timeout(600)
class SqlServerStreamITCase {
    @Test
    void insertsUpdatesAndDeletesArriveInOrderWithWholeRows(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_basic (id INT PRIMARY KEY, v NVARCHAR(20) NULL)")) {
            db.execute("INSERT INTO s_basic VALUES (1, N'one'), (2, N'twö')",
                    "UPDATE s_basic SET v = N'uno' WHERE id = 1", "DELETE FROM s_basic WHERE id = 2");
            List<ChangeEvent> events = StreamTestSupport.events(stream, 4);
            assertThat(events).extracting(ChangeEvent::op).containsExactly(Op.INSERT, Op.INSERT, Op.UPDATE, Op.DELETE);
            assertThat(events.get(1).after().get("v")).isEqualTo("twö");
            assertThat(events.get(2).before().get("v")).isEqualTo("one");
            assertThat(events.get(2).after().get("v")).isEqualTo("uno");
            assertThat(events.get(3).before().get("id")).isEqualTo(2L);
            assertThat(events.get(0).shape().primaryKey()).containsExactly("id");
        }
    }

    /** Two instances, pages of 5: a full page cuts each batch, and every row still arrives once, in order. */
    @Test
    void windowsCutByFullPagesDeliverEveryRowOnce(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().maxEventsPerPoll(5).build(),
                "s_a (id INT PRIMARY KEY)", "s_b (id INT PRIMARY KEY)")) {
            List<String> statements = new ArrayList<>();
            for (int i = 0; i < 23; i++) {
                statements.add("BEGIN TRAN; INSERT INTO s_a VALUES (" + i + "); INSERT INTO s_b VALUES (" + i
                        + "), (" + (100 + i) + "); COMMIT");
            }
            db.execute(statements.toArray(String[]::new));
            List<StreamRecord<SqlServerPosition>> records = StreamTestSupport.records(stream, 69, Duration.ofSeconds(120));
            List<String> rows = records.stream().filter(r -> r.event() != null)
                    .map(r -> r.event().table().table() + ":" + r.event().after().get("id")).collect(Collectors.toList());
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 23; i++) {
                expected.addAll(List.of("s_a:" + i, "s_b:" + i, "s_b:" + (100 + i)));
            }
            assertThat(rows).containsExactlyElementsOf(expected);
            for (int i = 1; i < records.size(); i++) {
                assertThat(records.get(i).position()).isGreaterThanOrEqualTo(records.get(i - 1).position());
            }
        }
    }

    /** A table enabled while the stream runs has a floor after the stream's position: normal, not purged. */
    @Test
    void anInstanceCreatedWhileStreamingIsReadFromItsFloor(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_first (id INT PRIMARY KEY)")) {
            db.execute("INSERT INTO s_first VALUES (1)");
            StreamTestSupport.events(stream, 1);
            db.execute("CREATE TABLE s_later (id INT PRIMARY KEY)");
            db.enableTable("s_later");
            db.execute("INSERT INTO s_later VALUES (7)");
            assertThat(StreamTestSupport.events(stream, 1).get(0).table().table()).isEqualTo("s_later");
        }
    }

    /** The cleanup job's low water mark raised past unread changes: the stream fails naming the instance. */
    @Test
    void changesPurgedBeforeTheyWereReadFailNamingTheCaptureInstance(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_purged (id INT PRIMARY KEY)")) {
            db.execute("INSERT INTO s_purged VALUES (1)", "INSERT INTO s_purged VALUES (2)");
            db.awaitValue("SELECT COUNT(*) FROM cdc.dbo_s_purged_CT", "2");
            db.execute("DECLARE @lsn binary(10) = sys.fn_cdc_get_max_lsn(); EXEC sys.sp_cdc_cleanup_change_table "
                    + "@capture_instance = N'dbo_s_purged', @low_water_mark = @lsn");
            assertThatThrownBy(() -> StreamTestSupport.events(stream, 1)).isInstanceOf(CdcException.class)
                    .hasMessageContaining("capture instance 'dbo_s_purged'")
                    .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST));
        }
    }

    /**
     * An update's old row holds a varchar(max)/nvarchar(max)/varbinary(max)/xml value only when the
     * update changed it, and never a text/ntext/image value: those are absent, never NULL.
     */
    @Test
    void largeValuesTheChangeTableDoesNotHoldAreAbsentNotNull(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_lob (id INT PRIMARY KEY, v INT NOT NULL, big NVARCHAR(MAX) NULL, old NTEXT NULL)")) {
            db.execute("INSERT INTO s_lob VALUES (1, 1, N'large', N'legacy')", "UPDATE s_lob SET v = 2 WHERE id = 1",
                    "UPDATE s_lob SET big = N'larger' WHERE id = 1", "DELETE FROM s_lob WHERE id = 1");
            List<ChangeEvent> events = StreamTestSupport.events(stream, 4);
            ChangeEvent unchanged = events.get(1);
            assertThat(unchanged.before().absentFields()).containsExactlyInAnyOrder("big", "old");
            assertThat(unchanged.after().get("big")).isEqualTo("large");
            ChangeEvent changed = events.get(2);
            assertThat(changed.before().get("big")).isEqualTo("large");
            assertThat(changed.before().absentFields()).containsExactly("old");
            assertThat(events.get(3).before().absentFields()).containsExactly("old");
            assertThat(events.get(3).before().get("big")).isEqualTo("larger");
        }
    }

    /** A key update (as deletes and inserts, or as updates: SQL Server decides) moves exactly the rows it moved. */
    @Test
    void aKeyUpdateMovesTheRows(SqlServerDatabase db) throws Exception {
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(),
                "s_key (id INT PRIMARY KEY, v INT NOT NULL)")) {
            db.execute("INSERT INTO s_key VALUES (1, 1), (2, 2)");
            StreamTestSupport.events(stream, 2);
            db.execute("UPDATE s_key SET id = id + 10", "INSERT INTO s_key VALUES (100, 0)");
            List<Long> removed = new ArrayList<>();
            List<Long> added = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!added.contains(100L)) {
                assertThat(System.nanoTime()).as("the marker row within 60 s").isLessThan(deadline);
                StreamRecord<SqlServerPosition> r = stream.poll(Duration.ofMillis(200));
                if (r != null && r.event() != null) {
                    if (r.event().before() != null) {
                        removed.add((Long) r.event().before().get("id"));
                    }
                    if (r.event().after() != null) {
                        added.add((Long) r.event().after().get("id"));
                    }
                }
            }
            assertThat(removed).containsExactlyInAnyOrder(1L, 2L);
            assertThat(added).containsExactlyInAnyOrder(11L, 12L, 100L);
        }
    }
}
