package io.rustcdc.flink.testing.transactions;

/**
 * A change as the sink wrote it: its transaction's id (null for a snapshot row), its index there, the
 * writer's transaction number, and the subtask and the checkpoint it fell in (the count of barriers its writer
 * had seen, or the id of the committed batch that held it). A transaction
 * marker has {@code tx} -1, and {@code index} 0 at the begin, minus the transaction's event count at the end.
 */
record Tagged(String transaction, long index, int tx, int subtask, long checkpoint) {
    /** A change as {@link Untagged} wrote it, tagged. */
    static Tagged parse(String change, int subtask, long checkpoint) {
        String[] f = change.split("\\|");
        return new Tagged(f[0].equals("-") ? null : f[0], Long.parseLong(f[1]), Integer.parseInt(f[2]), subtask,
                checkpoint);
    }

    boolean marker() {
        return tx == -1;
    }
}
