package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.retry.RetryingConnector;
import io.rustcdc.flink.source.spi.CdcConnector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * A connector as the source's readers and enumerator use it, its failures retried by {@link
 * RetryingConnector}, and its retries counted here: for tests at the connector boundary, without a job.
 */
final class CountedRetries {
    private final SimpleCounter retries = new SimpleCounter();
    private final CdcConnector<PostgresPosition, PostgresChunkMark> connector;

    CountedRetries(CdcConnector<PostgresPosition, PostgresChunkMark> connector) {
        this.connector = RetryingConnector.wrap(connector, new UnregisteredMetricsGroup() {
            @Override
            public Counter counter(String name) {
                return retries;
            }
        });
    }

    CdcConnector<PostgresPosition, PostgresChunkMark> connector() {
        return connector;
    }

    /** The retries so far. */
    long count() {
        return retries.getCount();
    }
}
