package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code 'password.file'} in a {@code CREATE TABLE}: the planned job graph holds the file's path,
 * not the password, and the job reads the file where it runs.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class SqlSecretsITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    @Test
    void thePlannedJobGraphHoldsThePasswordFilesPathNotThePassword(PostgresDatabase db, @TempDir Path dir)
            throws Exception {
        db.execute("CREATE TABLE items (id int PRIMARY KEY, name text)",
                "ALTER TABLE items OWNER TO " + db.replicationUser(),
                "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 20) g");
        Path passwordFile = dir.resolve("password");
        Files.writeString(passwordFile, db.replicationPassword() + "\n", StandardCharsets.UTF_8);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(2);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql("CREATE TABLE items (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                + "'connector' = 'rustcdc-postgres', 'hostname' = '" + db.host() + "', 'port' = '" + db.port()
                + "', 'username' = '" + db.replicationUser() + "', 'password.file' = '" + passwordFile
                + "', 'database-name' = '" + db.name() + "', 'table-name' = 'items', 'tls.mode' = 'disable', "
                + "'scan.startup.mode' = 'snapshot')");
        Table items = tables.sqlQuery("SELECT id, name FROM items");

        tables.toChangelogStream(items).print();
        JobGraph graph = env.getStreamGraph().getJobGraph();
        String bytes = new String(InstantiationUtil.serializeObject(graph), StandardCharsets.ISO_8859_1);
        assertThat(bytes).contains(passwordFile.toString()).doesNotContain(db.replicationPassword());

        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = items.execute().collect()) {
            it.forEachRemaining(rows::add);
        }
        assertThat(rows).hasSize(20);
    }
}
