package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Oracle MySQL 9's VECTOR through {@code 'connector' = 'rustcdc-mysql'}: declared {@code ARRAY<FLOAT NOT NULL>},
 * a snapshot row and a binlog row give the floats written, bit for bit (-0.0 and a subnormal included), NULL
 * as NULL; an element type that is not FLOAT or DOUBLE is refused when the job is planned. On an Oracle MySQL
 * server of the test's own ({@code -Doracle-mysql.skip} leaves it out: it needs root, see the README).
 */
@Timeout(300)
class MySqlVectorSqlITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static MySqlDatabase db;

    @BeforeAll
    static void oracleMySql() {
        assumeFalse(Boolean.getBoolean("oracle-mysql.skip"), "-Doracle-mysql.skip is set");
        db = MySqlServer.startPrivate("mysql", List.of()).createDatabase("vector_sql");
    }

    private static StreamTableEnvironment tables() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(1);
        env.enableCheckpointing(300);
        return StreamTableEnvironment.create(env);
    }

    private static String with(String table, int serverId) {
        return "WITH ('connector' = 'rustcdc-mysql', 'hostname' = '" + db.host() + "', 'port' = '" + db.port()
                + "', 'username' = '" + db.cdcUser() + "', 'password' = '" + db.cdcPassword() + "', 'database-name' = '"
                + db.name() + "', 'table-name' = '" + table + "', 'server-id' = '" + serverId + "')";
    }

    @Test
    void vectorsAreArraysOfTheirFloatsFromSnapshotAndBinlog() throws Exception {
        // 1.5, -0.0, the smallest subnormal; then 1.0, 2.0
        db.execute("CREATE TABLE emb (id INT PRIMARY KEY, v VECTOR(3))",
                "INSERT INTO emb VALUES (1, x'0000c03f0000008001000000'), (2, NULL)");
        StreamTableEnvironment tables = tables();
        tables.executeSql("CREATE TABLE emb (id INT, v ARRAY<FLOAT NOT NULL>, PRIMARY KEY (id) NOT ENFORCED) "
                + with("emb", 7301));
        TableResult result = tables.executeSql("SELECT id, v FROM emb");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            rows.add(it.next());
            rows.add(it.next());
            db.execute("INSERT INTO emb VALUES (3, x'0000803f00000040')");
            rows.add(it.next());
        }
        rows.sort((a, b) -> Integer.compare((Integer) a.getField("id"), (Integer) b.getField("id")));
        assertThat(bits(rows.get(0).getField("v"))).containsExactly(0x3fc00000, 0x80000000, 0x00000001);
        assertThat(rows.get(1).getField("v")).isNull();
        assertThat(bits(rows.get(2).getField("v"))).containsExactly(0x3f800000, 0x40000000);
    }

    @Test
    void anElementTypeThatIsNotAFloatIsRefusedWhenTheJobIsPlanned() {
        db.execute("CREATE TABLE emb_lossy (id INT PRIMARY KEY, v VECTOR(3))");
        StreamTableEnvironment tables = tables();
        tables.executeSql("CREATE TABLE emb_lossy (id INT, v ARRAY<DECIMAL(10, 2)>) " + with("emb_lossy", 7302));
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM emb_lossy"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("column v: declared ARRAY<DECIMAL(10, 2)> cannot hold the source type vector(3)")
                        .contains("(the default mapping is ARRAY<FLOAT>)"));
    }

    private static List<Integer> bits(Object array) {
        List<Integer> bits = new ArrayList<>();
        for (Float f : (Float[]) array) {
            bits.add(Float.floatToRawIntBits(f));
        }
        return bits;
    }
}
