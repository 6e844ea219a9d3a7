package io.rustcdc.flink.testing.transactions;

/**
 * A change as the sink wrote it: its transaction's id (null for a snapshot row), its index there, the
 * writer's transaction number, and the subtask and the count of checkpoints it had seen. A transaction
 * marker has {@code tx} -1, and {@code index} 0 at the begin, minus the transaction's event count at the end.
 */
record Tagged(String transaction, long index, int tx, int subtask, long checkpoint) {
    boolean marker() {
        return tx == -1;
    }
}
