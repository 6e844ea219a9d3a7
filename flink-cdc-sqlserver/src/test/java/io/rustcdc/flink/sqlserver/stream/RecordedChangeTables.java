package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.ChangeOperation;
import io.rustcdc.flink.sqlserver.Lsn;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recorded change table rows by capture instance, as plain data, and the selection the stream's query
 * makes of them (ours, not SQL Server's: rows after the read's position, commit LSN in its range and
 * below a newer instance's floor, in change order, at most a page).
 */
final class RecordedChangeTables {
    private static final long FIRST_VLF = 0x25;

    final Map<String, List<ChangeRow>> rows = new LinkedHashMap<>();

    RecordedChangeTables add(String instance, long commit, long seqval, ChangeOperation op) {
        return add(instance, commit, 0, seqval, op);
    }

    /** A row of statement {@code command} of its transaction. */
    RecordedChangeTables add(String instance, long commit, int command, long seqval, ChangeOperation op) {
        rows.computeIfAbsent(instance, k -> new ArrayList<>())
                .add(new ChangeRow(instance, lsn(commit), command, lsn(seqval), op, new Object[] {commit, seqval}));
        return this;
    }

    /** An update's old and new row. */
    RecordedChangeTables update(String instance, long commit, long seqval) {
        return update(instance, commit, 0, seqval);
    }

    RecordedChangeTables update(String instance, long commit, int command, long seqval) {
        return add(instance, commit, command, seqval, ChangeOperation.UPDATE_BEFORE)
                .add(instance, commit, command, seqval, ChangeOperation.UPDATE_AFTER);
    }

    InstancePage read(InstanceRead read, int pageSize) {
        List<ChangeRow> selected = new ArrayList<>();
        rows.getOrDefault(read.instance().name(), List.of()).stream()
                .sorted(Comparator.comparing(ChangeRow::position))
                .filter(r -> r.position().compareTo(read.after()) > 0)
                .filter(r -> r.position().commitLsn().compareTo(read.from()) >= 0
                        && r.position().commitLsn().compareTo(read.to()) <= 0)
                .filter(r -> read.below() == null || r.position().commitLsn().compareTo(read.below()) < 0)
                .limit(pageSize)
                .forEach(selected::add);
        return new InstancePage(read, selected, pageSize);
    }

    /** The n-th LSN of a log whose first virtual log file is 0x25 (a log's are numbered from 1, as a server's). */
    static Lsn lsn(long n) {
        return Lsn.of(FIRST_VLF + (n >>> 32), n & 0xFFFF_FFFFL, 1);
    }

    /** The n of {@link #lsn}. */
    static long value(Lsn lsn) {
        byte[] b = lsn.bytes();
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v - (FIRST_VLF << 32);
    }
}
