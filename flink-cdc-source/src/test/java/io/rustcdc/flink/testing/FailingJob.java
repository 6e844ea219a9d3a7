package io.rustcdc.flink.testing;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * A source job that is expected to fail, run into a discarding sink rather than collected. A job that fails
 * before Flink's collect sink has opened (a source's check as the job starts) fails that sink's close, its buffer
 * lock still null (FLINK-39330), which is fatal to the MiniCluster's only TaskManager: every later job of the
 * test class then waits for slots until it times out.
 */
public final class FailingJob {
    private FailingJob() {}

    /** The failure of a job of {@code source} on {@code env}; an AssertionError when the job ends without one. */
    public static Exception failureOf(StreamExecutionEnvironment env, Source<?, ?, ?> source) {
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "source").sinkTo(new DiscardingSink<>());
        try {
            env.execute("expected to fail");
        } catch (Exception failed) {
            return failed;
        }
        throw new AssertionError("The job of " + source + " ended without failing");
    }
}
