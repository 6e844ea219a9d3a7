package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Reads a change stream in tests: records until a condition holds, with a deadline. */
public final class StreamTestSupport {
    private StreamTestSupport() {}

    /** Every record until {@code count} events arrived; fails after {@code timeout}. */
    public static <P> List<StreamRecord<P>> records(ChangeStream<P> stream, int count, Duration timeout)
            throws InterruptedException {
        List<StreamRecord<P>> records = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        int events = 0;
        while (events < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + events + " of " + count + " events: " + records);
            }
            StreamRecord<P> r = stream.poll(Duration.ofMillis(200));
            if (r != null) {
                records.add(r);
                if (r.event() != null) {
                    events++;
                }
            }
        }
        return records;
    }

    /** The next {@code count} events. */
    public static <P> List<ChangeEvent> events(ChangeStream<P> stream, int count) throws InterruptedException {
        List<ChangeEvent> events = new ArrayList<>();
        for (StreamRecord<P> r : records(stream, count, Duration.ofSeconds(30))) {
            if (r.event() != null) {
                events.add(r.event());
            }
        }
        return events;
    }

    /** Fails when an event arrives within {@code wait}. */
    public static <P> void assertNoEvent(ChangeStream<P> stream, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            StreamRecord<P> r = stream.poll(Duration.ofMillis(100));
            if (r != null && r.event() != null) {
                throw new AssertionError("Unexpected event " + r);
            }
        }
    }

    /** Polls {@code stream} for {@code duration}, which must pass without a failure. */
    public static <P> void pollWithoutFailure(ChangeStream<P> stream, Duration duration) throws InterruptedException {
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            stream.poll(Duration.ofMillis(100));
        }
    }

    /** The failure {@code stream} ends with, polled until it comes; fails after {@code within}. */
    public static <P> CdcException failureOf(ChangeStream<P> stream, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                stream.poll(Duration.ofMillis(100));
            }
        } catch (CdcException e) {
            return e;
        }
        throw new AssertionError("The stream did not fail within " + within);
    }
}
