package io.rustcdc.flink.sql;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.util.ExceptionUtils;

/**
 * The failure of a query's job that is expected to fail as it starts (a source's check at the start), run into a
 * blackhole sink rather than collected. A job that fails before Flink 2.3's collect sink has opened fails that
 * sink's close (CollectSinkFunction.accumulateFinalResults, its buffer lock still null; FLINK-39330), which is fatal
 * to the MiniCluster's only TaskManager: every later job of the test class then waits for slots until it times out.
 */
final class JobFailure {
    private JobFailure() {}

    /** The stringified failure of {@code query}'s job; an AssertionError when the job ends without one. */
    static String of(TableEnvironment tables, String query) throws Exception {
        Table table = tables.sqlQuery(query);
        TableDescriptor blackhole = TableDescriptor.forConnector("blackhole")
                .schema(Schema.newBuilder().fromResolvedSchema(table.getResolvedSchema()).build())
                .build();
        try {
            table.executeInsert(blackhole).getJobClient().orElseThrow().getJobExecutionResult().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            return ExceptionUtils.stringifyException(failed);
        }
        throw new AssertionError("The job of " + query + " ended without failing");
    }
}
