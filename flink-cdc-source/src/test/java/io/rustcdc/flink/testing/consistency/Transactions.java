package io.rustcdc.flink.testing.consistency;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Draws a writer's next transaction: most change one to three rows (updates, upserts, deletes,
 * plain inserts that may collide, key updates that move a row to another chunk), some change
 * dozens, a few insert hundreds or update up to ten thousand rows at once; one in ten is rolled
 * back. A statement that fails (a collision, a deadlock) rolls the whole transaction back.
 */
final class Transactions {
    private final ConsistencyTarget target;
    private final int slots;
    private final Random random;

    Transactions(ConsistencyTarget target, int slots, long seed) {
        this.target = target;
        this.slots = slots;
        this.random = new Random(seed);
    }

    /** Whether the next transaction is to be rolled back instead of committed. */
    boolean rollBack() {
        return random.nextInt(10) == 0;
    }

    List<String> next() {
        List<String> statements = new ArrayList<>();
        int size = random.nextInt(1000);
        if (size < 5) {
            SuiteTable t = table();
            statements.add("UPDATE " + t.name + " SET v = v + 1, ver = ver + 1 WHERE "
                    + t.keyRange(slot(), 100 + random.nextInt(10_000)));
        } else if (size < 35) {
            statements.add(bulkUpsert(table(), 50 + random.nextInt(500)));
        } else {
            int n = size < 135 ? 5 + random.nextInt(40) : 1 + random.nextInt(3);
            for (int i = 0; i < n; i++) {
                statements.add(rowChange(table()));
            }
        }
        return statements;
    }

    private String rowChange(SuiteTable t) {
        int slot = slot();
        int kind = random.nextInt(100);
        if (kind < 30) {
            return "UPDATE " + t.name + " SET v = " + random.nextInt(1_000_000) + ", ver = ver + 1, pad = "
                    + Workload.pad(random) + " WHERE " + t.keyIs(slot);
        } else if (kind < 50) {
            return upsert(t, List.of(slot));
        } else if (kind < 68) {
            return "DELETE FROM " + t.name + " WHERE " + t.keyIs(slot);
        } else if (kind < 72) {
            return "DELETE FROM " + t.name + " WHERE " + t.keyRange(slot, 1 + random.nextInt(5));
        } else if (kind < 82) {
            return "INSERT INTO " + t.name + " (" + t.columns() + ") VALUES (" + t.keyValues(slot) + ", "
                    + Workload.values(random, 0) + ")";
        } else {
            // moves the row to a key anywhere, so mostly into another chunk
            return "UPDATE " + t.name + " SET " + t.keySet(slot()) + ", ver = ver + 1 WHERE " + t.keyIs(slot);
        }
    }

    private String bulkUpsert(SuiteTable t, int rows) {
        java.util.Set<Integer> chosen = new java.util.LinkedHashSet<>();
        int start = slot();
        while (chosen.size() < rows) {
            chosen.add(random.nextBoolean() ? 1 + (start + chosen.size()) % slots : slot());
        }
        return upsert(t, new ArrayList<>(chosen));
    }

    private String upsert(SuiteTable t, List<Integer> rowSlots) {
        StringBuilder insert = new StringBuilder("INSERT INTO ").append(t.name).append(" (").append(t.columns())
                .append(") VALUES ");
        for (int i = 0; i < rowSlots.size(); i++) {
            insert.append(i == 0 ? "" : ", ").append('(').append(t.keyValues(rowSlots.get(i))).append(", ")
                    .append(Workload.values(random, 0)).append(')');
        }
        String assignments = "v = " + t.name + ".v + 1, ver = " + t.name + ".ver + 1";
        return target.upsert(insert.toString(), t.name, String.join(", ", t.keyColumns), assignments);
    }

    private SuiteTable table() {
        return SuiteTable.values()[random.nextInt(SuiteTable.values().length)];
    }

    private int slot() {
        return 1 + random.nextInt(slots);
    }
}
