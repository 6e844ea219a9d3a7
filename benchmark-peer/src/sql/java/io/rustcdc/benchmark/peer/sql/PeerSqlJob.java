package io.rustcdc.benchmark.peer.sql;

import io.rustcdc.benchmark.BenchmarkArgs;
import io.rustcdc.benchmark.SqlPath;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/** A peer's SQL path: its Flink CDC table ({@code options}) into {@link CountingSinkFactory}'s sink. */
public final class PeerSqlJob {
    private PeerSqlJob() {}

    public static JobClient submit(StreamExecutionEnvironment env, BenchmarkArgs args, Map<String, String> options) {
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(SqlPath.source(args, options));
        tables.executeSql(SqlPath.sink(args));
        return tables.executeSql(SqlPath.INSERT).getJobClient().orElseThrow();
    }
}
