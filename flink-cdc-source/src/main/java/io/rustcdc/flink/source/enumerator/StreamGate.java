package io.rustcdc.flink.source.enumerator;

import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the stream split back, once the last chunk is read, until a checkpoint taken after that
 * has completed. Chunks are read by other subtasks than the one that streams, and Flink orders
 * records only within one channel: a change the stream emits could otherwise reach an operator
 * downstream before the snapshot row it changes, still in another reader's output buffer. A
 * completed (aligned) checkpoint means every operator has processed what the readers emitted
 * before it. With one reader there is one channel and nothing to wait for. If no checkpoint
 * completes within {@link #FALLBACK_NANOS} (checkpointing off, or a long interval), the stream
 * starts anyway and the caller warns that the order across subtasks is not guaranteed.
 */
@Internal
final class StreamGate {
    private static final Logger LOG = LoggerFactory.getLogger(StreamGate.class);
    static final long FALLBACK_NANOS = 10_000_000_000L;

    private long armedAt = -1;
    private long checkpoint = -1;
    private boolean completed;

    /** The last chunk is read: from now on, the next checkpoint opens the gate. */
    void arm(long nowNanos) {
        if (armedAt < 0) {
            armedAt = nowNanos;
        }
    }

    /**
     * A chunk was reported read or is read again, or the stream split was dropped (see {@link
     * StreamOwner#handedBack}): the split waits for a checkpoint taken after that.
     */
    void reset() {
        armedAt = -1;
        checkpoint = -1;
        completed = false;
    }

    boolean armed() {
        return armedAt >= 0;
    }

    /** A checkpoint is being taken; the first one after arming is the one to wait for. */
    void checkpointTaken(long checkpointId) {
        if (armedAt >= 0 && checkpoint < 0) {
            checkpoint = checkpointId;
        }
    }

    void checkpointCompleted(long checkpointId) {
        if (checkpoint >= 0 && checkpointId >= checkpoint) {
            completed = true;
        }
    }

    /** Whether the snapshot rows are downstream for sure. */
    boolean open() {
        return completed;
    }

    /** Whether waiting has lasted long enough to give up on a checkpoint. */
    boolean fallbackDue(long nowNanos) {
        return armedAt >= 0 && nowNanos - armedAt >= FALLBACK_NANOS;
    }

    /**
     * Whether the stream may start now that the last chunk is read: with one reader at once, else
     * when the gate is open or, with a WARN, when the fallback is due. Arms the gate.
     */
    boolean mayStart(int parallelism, long nowNanos) {
        if (parallelism == 1 || open()) {
            return true;
        }
        arm(nowNanos);
        if (fallbackDue(nowNanos)) {
            LOG.warn("No checkpoint completed within {} s of the last snapshot chunk, so the stream starts now. "
                    + "Without a completed checkpoint between them, a change may reach operators downstream before "
                    + "the snapshot row it changes when they were read by different subtasks: enable checkpointing "
                    + "(an interval of a few seconds) for an exact handoff.", FALLBACK_NANOS / 1_000_000_000L);
            return true;
        }
        return false;
    }
}
