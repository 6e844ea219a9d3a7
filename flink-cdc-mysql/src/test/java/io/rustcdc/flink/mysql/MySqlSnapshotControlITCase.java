package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.StoppedPartWay;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * On-demand snapshots on MySQL and MariaDB: a table whose first snapshot is stopped part-way, after rows of it went
 * downstream, then requested again, with deletes of delivered rows in between (while stopped, while no job runs,
 * while it is read again): the changelog ends equal to the table ({@link StoppedPartWay}). The rest of snapshot
 * control is the framework's, tested on PostgreSQL ({@code PostgresSnapshotControlITCase}).
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlSnapshotControlITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    @Test
    void aTableStoppedPartWayAndRequestedAgainEndsEqualToItsRowsDeletesIncluded(MySqlDatabase db,
            @TempDir Path control, @TempDir Path savepoints) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        db.execute(StoppedPartWay.create().toArray(String[]::new));
        StoppedPartWay.run(db, db.name() + ".t3", control, savepoints, json -> source(db, control, json));
    }

    private static CdcSource<String, MySqlPosition, MySqlPosition> source(MySqlDatabase db, Path control,
            ChangeEventDeserializer<String> deserializer) {
        return CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t3")
                .chunkSize(50)
                .controlPath(control.toUri().toString())
                .controlInterval(Duration.ofMillis(200))
                .deserializer(deserializer)
                .build();
    }
}
