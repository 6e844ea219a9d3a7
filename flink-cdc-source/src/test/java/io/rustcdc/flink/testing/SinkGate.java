package io.rustcdc.flink.testing;

import org.apache.flink.api.common.functions.MapFunction;

/**
 * Backpressure on demand: a map that passes records on, holding each while a test {@link #hold}s
 * the gate, until it {@link #release}s it. The job must run in the test's JVM (a MiniCluster); the
 * gate is one per JVM, so tests that use it run one at a time (as the ITs do). Release it after
 * each test, also when it failed.
 */
public final class SinkGate implements MapFunction<String, String> {
    private static volatile boolean held;

    /** From now on, every record waits in the gate. */
    public static void hold() {
        held = true;
    }

    /** The records pass again. */
    public static void release() {
        held = false;
    }

    @Override
    public String map(String value) throws InterruptedException {
        while (held) {
            Thread.sleep(20);
        }
        return value;
    }
}
