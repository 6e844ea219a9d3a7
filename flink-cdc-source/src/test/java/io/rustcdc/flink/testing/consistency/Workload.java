package io.rustcdc.flink.testing.consistency;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Everything a run does, drawn from one seed: the tables' sizes, the job (parallelism, chunk
 * size, checkpoint interval, sink), the writers and their transactions, and the faults with
 * their moments. The same seed gives the same workload; the interleaving of writers and faults
 * with the job is the machine's.
 */
final class Workload {
    enum Fault {
        TASK_MANAGER_LOSS, JOB_MANAGER_FAILOVER, SAVEPOINT_AND_RESTORE
    }

    enum Sink {
        /** Flink's collect sink: what a failed attempt emitted is never delivered (a committing sink). */
        EXACTLY_ONCE,
        /** A sink that keeps everything any attempt wrote, read as an upsert by key (an idempotent sink). */
        AT_LEAST_ONCE
    }

    static final class TimedFault {
        final Fault fault;
        final long atMillis;

        TimedFault(Fault fault, long atMillis) {
            this.fault = fault;
            this.atMillis = atMillis;
        }

        @Override
        public String toString() {
            return fault + "@" + atMillis + "ms";
        }
    }

    private static final int[] CHUNK_SIZES = {7, 25, 60, 150, 400};

    final long seed;
    final int rowsPerTable;
    /**
     * The keys the rows are drawn from: three per initial row, or, in a run with dense keys, nine for every
     * eight rows, so that an integer key fills its range and its chunk ends are computed ({@code DenseKeyChunks})
     * while the writers change it.
     */
    final int slots;
    final boolean denseKeys;
    final int parallelism;
    final int chunkSize;
    final long checkpointMillis;
    final int writers;
    final long writeMillis;
    final Sink sink;
    /** When the table {@link SuiteTable#CREATED_LATER} is created, from the job's start. */
    final long createLaterMillis;
    final List<TimedFault> faults = new ArrayList<>();

    Workload(long seed, boolean atLeastOnceSinks) {
        this(seed, atLeastOnceSinks, true);
    }

    Workload(long seed, boolean atLeastOnceSinks, boolean taskManagerLoss) {
        this.seed = seed;
        Random r = new Random(seed);
        rowsPerTable = 1_000 + r.nextInt(3_000);
        denseKeys = denseKeys(seed);
        slots = denseKeys ? rowsPerTable * 9 / 8 : rowsPerTable * 3;
        parallelism = 1 + r.nextInt(4);
        chunkSize = Math.max(CHUNK_SIZES[r.nextInt(CHUNK_SIZES.length)],
                Integer.getInteger(ConsistencySuite.MIN_CHUNK_PROPERTY, 0));
        checkpointMillis = 200 + r.nextInt(400);
        writers = 2 + r.nextInt(3);
        writeMillis = 6_000 + r.nextInt(6_000);
        sink = atLeastOnceSinks && r.nextBoolean() ? Sink.AT_LEAST_ONCE : Sink.EXACTLY_ONCE;
        createLaterMillis = 300 + r.nextInt((int) (writeMillis * 2 / 3));
        int count = r.nextInt(3);
        List<Long> moments = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // half of them early, while the snapshot of these small tables is likely still running
            moments.add((long) (r.nextBoolean() ? 200 + r.nextInt(2_500) : 200 + r.nextInt((int) writeMillis)));
        }
        moments.sort(null);
        for (long at : moments) {
            Fault fault = Fault.values()[r.nextInt(Fault.values().length)];
            faults.add(new TimedFault(fault != Fault.SAVEPOINT_AND_RESTORE && !taskManagerLoss
                    ? Fault.SAVEPOINT_AND_RESTORE : fault, at));
        }
    }

    /** Whether the run of {@code seed} has dense keys: its second lowest bit is clear. */
    static boolean denseKeys(long seed) {
        return (seed & 2) == 0;
    }

    /** {@code seed} with its second lowest bit set so that its run has dense keys or not. */
    static long withDenseKeys(long seed, boolean dense) {
        return dense ? seed & ~2L : seed | 2L;
    }

    /** The seed of writer {@code w}'s transactions. */
    long writerSeed(int w) {
        return seed * 31 + w + 1;
    }

    @Override
    public String toString() {
        return "seed=" + seed + " rows/table=" + rowsPerTable + (denseKeys ? " (dense keys)" : "") + " parallelism="
                + parallelism + " chunkSize=" + chunkSize
                + " checkpoint=" + checkpointMillis + "ms writers=" + writers + " writing=" + writeMillis + "ms sink="
                + sink + " faults=" + faults + " c_later created@" + createLaterMillis + "ms";
    }

    /** The initial rows' slots of a table: {@code rowsPerTable} distinct slots in 1..slots. */
    List<Integer> initialSlots(SuiteTable table) {
        Random r = new Random(seed ^ table.name.hashCode());
        java.util.BitSet taken = new java.util.BitSet();
        List<Integer> result = new ArrayList<>();
        int rows = table == SuiteTable.CREATED_LATER ? rowsPerTable / 3 : rowsPerTable;
        while (result.size() < rows) {
            int s = 1 + r.nextInt(slots);
            if (!taken.get(s)) {
                taken.set(s);
                result.add(s);
            }
        }
        return result;
    }

    /** One row's values after its key: {@code v, ver, pad}. */
    static String values(Random r, int ver) {
        return r.nextInt(1_000_000) + ", " + ver + ", " + pad(r);
    }

    static String pad(Random r) {
        if (r.nextInt(5) == 0) {
            return "NULL";
        }
        char[] text = new char[r.nextInt(200)];
        for (int i = 0; i < text.length; i++) {
            text[i] = (char) ('a' + r.nextInt(26));
        }
        return "'" + new String(text) + "'";
    }
}
