package io.rustcdc.flink.sqlserver;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A change table's {@code __$operation}: what a row of a change table records. The codes are SQL
 * Server's; within one {@code __$seqval} they order as the rows do (an update's old row, 3, before
 * its new row, 4).
 */
@PublicEvolving
public enum ChangeOperation {
    DELETE(1),
    INSERT(2),
    UPDATE_BEFORE(3),
    UPDATE_AFTER(4);

    private final int code;

    ChangeOperation(int code) {
        this.code = code;
    }

    /** SQL Server's {@code __$operation} code. */
    public int code() {
        return code;
    }

    /**
     * The operation of {@code __$operation} {@code code}.
     *
     * @throws IllegalArgumentException for any other code (5, the net-changes merge code, is never read here)
     */
    public static ChangeOperation of(int code) {
        for (ChangeOperation op : values()) {
            if (op.code == code) {
                return op;
            }
        }
        throw new IllegalArgumentException("Not a change table __$operation code read by this connector: " + code
                + " (1 delete, 2 insert, 3 update's old row, 4 update's new row)");
    }
}
