package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A chunk's mark says exactly which transactions its rows show: those committed before its
 * snapshot, not one that was in progress while it read, nor a later one; the stream decides from
 * each event's position alone.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresChunkMarkITCase {

    @Test
    void markReflectsExactlyTheTransactionsTheChunkSaw(PostgresDatabase db) throws Exception {
        db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)", "ALTER TABLE t OWNER TO " + db.replicationUser());
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, "mark_slot"));
        TableId table = TableId.of(db.name(), "public", "t");
        PostgresPosition start;
        PostgresChunkMark mark;
        List<ChangeEvent> chunkRows = new ArrayList<>();
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession();
                Connection concurrent = db.admin();
                Statement inProgress = concurrent.createStatement()) {
            start = session.prepareStream(List.of(table), false);
            db.execute("INSERT INTO t VALUES (1, 'committed before')");
            concurrent.setAutoCommit(false);
            inProgress.execute("INSERT INTO t VALUES (2, 'in progress during the chunk')");
            db.execute("INSERT INTO t VALUES (3, 'committed before, started after the concurrent one')");
            mark = session.readChunk(session.describe(table), List.of("id"), null, null, chunkRows::add);
            concurrent.commit();
            db.execute("INSERT INTO t VALUES (4, 'after')");
        }
        assertThat(chunkRows).extracting(e -> e.after().get("id")).containsExactlyInAnyOrder(1L, 3L);
        Map<Long, Boolean> reflected = new HashMap<>();
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            for (var r : StreamTestSupport.records(stream, 4, java.time.Duration.ofSeconds(30))) {
                if (r.event() != null) {
                    reflected.put((Long) r.event().after().get("id"), connector.reflects(mark, r.position()));
                }
            }
        }
        assertThat(reflected).containsEntry(1L, true).containsEntry(3L, true)
                .containsEntry(2L, false).containsEntry(4L, false);
        assertThat(connector.reflects(mark, PostgresPosition.at(start.lsn()))).as("no transaction").isFalse();
    }
}
