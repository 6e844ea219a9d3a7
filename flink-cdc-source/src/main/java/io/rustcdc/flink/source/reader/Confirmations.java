package io.rustcdc.flink.source.reader;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.TreeMap;
import javax.annotation.Nullable;

/**
 * Which stream position may be confirmed to the database: one a checkpoint holds, once that
 * checkpoint completed, and only the n-th newest completed one ({@code checkpoints.retained}), so
 * that a restore from any retained checkpoint finds its position still held by the database.
 */
final class Confirmations<P> {
    private final int retained;
    private final TreeMap<Long, P> checkpointPositions = new TreeMap<>();
    private final Deque<P> completedPositions = new ArrayDeque<>();

    Confirmations(int retained) {
        this.retained = retained;
    }

    /** Checkpoint {@code checkpointId} holds the stream at {@code position}. */
    void checkpointed(long checkpointId, P position) {
        checkpointPositions.put(checkpointId, position);
    }

    /**
     * Checkpoint {@code checkpointId} completed (subsuming older ones not completed): the position to
     * confirm now, or null when none may be.
     */
    @Nullable
    P completed(long checkpointId) {
        P position = checkpointPositions.remove(checkpointId);
        checkpointPositions.headMap(checkpointId).clear(); // older ones were subsumed
        if (position == null) {
            return null;
        }
        completedPositions.addLast(position);
        while (completedPositions.size() > retained) {
            completedPositions.removeFirst();
        }
        return completedPositions.size() == retained ? completedPositions.peekFirst() : null;
    }
}
