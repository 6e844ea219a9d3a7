package io.rustcdc.flink.source.enumerator;

import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For a sink that keeps a failed attempt's records ({@link io.rustcdc.flink.source.SinkGuarantee#AT_LEAST_ONCE}),
 * holds back the first split of a source started without state until a checkpoint taken after its first start
 * has completed. A restore from a checkpoint taken before then (Flink may complete one while the first start
 * still looks for tables) starts the source over from nothing, with no state to say which chunks were emitted:
 * rows the failed attempt emitted and the database then deleted would stay in the sink. Held back, no attempt
 * emits anything that a restore could forget.
 *
 * <p>If no checkpoint at all is taken within {@link #FALLBACK_NANOS} of the first start (checkpointing off, or
 * a longer interval), the splits go out without waiting: then no checkpoint can hold the source before its first
 * start, and a failure before the first checkpoint starts the job over from nothing, as it always does. Once a
 * checkpoint has been taken, checkpointing is on and the gate waits for one taken after the first start,
 * however long it takes.
 */
@Internal
final class StartGate {
    private static final Logger LOG = LoggerFactory.getLogger(StartGate.class);
    static final long FALLBACK_NANOS = 10_000_000_000L;

    private final boolean holds;
    private long armedAt = -1;
    private boolean anyTaken;
    private long checkpoint = -1;
    private boolean open;

    /** @param holds whether the gate holds anything back: a first start for an at-least-once sink */
    StartGate(boolean holds) {
        this.holds = holds;
    }

    /** The first start is done: from now on, the next checkpoint taken opens the gate once it completes. */
    void arm(long nowNanos) {
        if (armedAt < 0) {
            armedAt = nowNanos;
        }
    }

    void checkpointTaken(long checkpointId) {
        anyTaken = true;
        if (armedAt >= 0 && checkpoint < 0) {
            checkpoint = checkpointId;
        }
    }

    /** A checkpoint completed; true when it opened the gate. */
    boolean checkpointCompleted(long checkpointId) {
        if (checkpoint >= 0 && checkpointId >= checkpoint && !open) {
            open = true;
            return true;
        }
        return false;
    }

    /** Whether splits may be handed out now. */
    boolean mayAssign(long nowNanos) {
        if (!holds || open) {
            return true;
        }
        if (armedAt >= 0 && !anyTaken && nowNanos - armedAt >= FALLBACK_NANOS) {
            open = true;
            LOG.info("No checkpoint was taken within {} s of the source's first start: its splits go out now. "
                    + "A failure before the first completed checkpoint starts the job over from nothing, and an "
                    + "at-least-once sink keeps what that attempt wrote.", FALLBACK_NANOS / 1_000_000_000L);
            return true;
        }
        return false;
    }

    /** Whether the gate still holds splits back and its fallback may come (the caller looks again later). */
    boolean waiting() {
        return holds && !open && armedAt >= 0 && !anyTaken;
    }
}
