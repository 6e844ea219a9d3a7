package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A table renamed into a captured name from one the reader does not capture (yet) fails the stream,
 * even when the include list matches the old name: its rows were never delivered.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlCapturedRenameITCase {

    @Test
    void aTableCreatedWhileStreamingAndRenamedIntoACapturedNameFails(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE target (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(TableId.of(db.name(), db.name(), "target")), false);
        }
        // created after the start, so not snapshotted: its rows are in the binlog, but the reader left them out
        db.execute("CREATE TABLE staging (id INT PRIMARY KEY)", "INSERT INTO staging VALUES (1), (2)",
                "RENAME TABLE target TO target_old, staging TO target");
        TableFilter everything = TableFilter.of(List.of(db.name() + ".*"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, everything)) {
            stream.captured(Set.of(TableId.of(db.name(), db.name(), "target")));
            assertThatThrownBy(() -> StreamTestSupport.events(stream, 10))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("renames " + db.name() + ".staging, which this source does not capture, to "
                            + db.name() + ".target");
        }
        // once staging is captured too (its snapshot read), its rows were delivered: the rename is schema changes
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, everything)) {
            stream.captured(Set.of(TableId.of(db.name(), db.name(), "target"), TableId.of(db.name(), db.name(), "staging")));
            assertThat(StreamTestSupport.events(stream, 4)).hasSize(4);
        }
    }
}
