package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.PositionString;
import io.rustcdc.flink.source.model.PositionText;
import io.rustcdc.flink.source.model.SourcePosition;
import java.util.Comparator;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A point in SQL Server's change tables, after which a stream resumes: either <em>after a
 * change</em> (commit LSN {@code __$start_lsn}, {@code __$command_id}, {@code __$seqval} and
 * {@code __$operation} of the last row taken; the rest of that commit follows) or <em>after a
 * commit</em> (every change whose commit LSN is at or before it was taken). Ordered by commit LSN,
 * then a change before the end of its commit, then command id, sequence value and operation: the
 * order in which the change tables are read (SQL Server documents {@code __$command_id}, not {@code
 * __$seqval}, as the order of a transaction's statements; a statement's rows share a command id and
 * follow their sequence values; an update's old and new rows, and a key update's delete and insert,
 * share both and follow their operation codes). Immutable.
 *
 * <p>Printed {@code 0000002D:000001A8:0003} after a commit and {@code
 * 0000002D:000001A8:0003/7/0000002D:000001A0:0002#4} after a change (commit LSN / command id /
 * sequence value # operation code); {@link #parse} reads both.
 */
@PublicEvolving
public final class SqlServerPosition implements SourcePosition, Comparable<SqlServerPosition> {
    private static final long serialVersionUID = 1L;

    private static final Comparator<SqlServerPosition> ORDER = Comparator.comparing(SqlServerPosition::commitLsn)
            .thenComparing(SqlServerPosition::isCommitEnd)
            .thenComparingInt(p -> p.commandId)
            .thenComparing(p -> p.seqval, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing(p -> p.operation == null ? 0 : p.operation.code());

    /** Below every log record's LSN: virtual log files are numbered from 1 up. */
    private static final Lsn FIRST_LOG_RECORD = Lsn.of(1, 0, 0);

    private final Lsn commitLsn;
    /** 0 after a commit. */
    private final int commandId;
    @Nullable private final Lsn seqval;
    @Nullable private final ChangeOperation operation;

    private SqlServerPosition(Lsn commitLsn, int commandId, @Nullable Lsn seqval,
            @Nullable ChangeOperation operation) {
        this.commitLsn = Objects.requireNonNull(commitLsn, "commitLsn");
        this.commandId = commandId;
        this.seqval = seqval;
        this.operation = operation;
    }

    /** After every change whose commit LSN is at or before {@code commitLsn}. */
    public static SqlServerPosition afterCommit(Lsn commitLsn) {
        return new SqlServerPosition(commitLsn, 0, null, null);
    }

    /** After the change table row ({@code commitLsn}, {@code commandId}, {@code seqval}, {@code operation}). */
    public static SqlServerPosition afterChange(Lsn commitLsn, int commandId, Lsn seqval, ChangeOperation operation) {
        return new SqlServerPosition(commitLsn, commandId, Objects.requireNonNull(seqval, "seqval"),
                Objects.requireNonNull(operation, "operation"));
    }

    /**
     * Before every change of commit {@code commitLsn} and after every earlier commit. It is the
     * position after a change no change table holds ({@code __$seqval} 0, which no log record has),
     * printed {@code 0000002D:000001A8:0003/0/00000000:00000000:0000#1}.
     */
    public static SqlServerPosition beforeCommit(Lsn commitLsn) {
        return afterChange(commitLsn, 0, Lsn.ZERO, ChangeOperation.DELETE);
    }

    /**
     * Where the stream announces the capture instance whose change table's {@code object_id} is
     * {@code changeTable} and whose floor is {@code commitLsn} (a schema change event): after {@link
     * #beforeCommit} and before every change of that commit, the instances of one floor in {@code
     * object_id} order, so that a stream restored between two of them knows which it announced. Its
     * sequence value is {@code 00000000:<object_id>:0001}, below every log record's (whose virtual log
     * file is never 0), printed {@code 0000002D:000001A8:0003/0/00000000:0000051F:0001#1}.
     */
    public static SqlServerPosition announcing(Lsn commitLsn, int changeTable) {
        return afterChange(commitLsn, 0, Lsn.of(0, changeTable & 0xFFFF_FFFFL, 1), ChangeOperation.DELETE);
    }

    /**
     * The position {@link #toString} printed.
     *
     * @throws CdcException of kind CONFIGURATION naming the text when it is not one
     */
    public static SqlServerPosition parse(String text) {
        try {
            String t = text.trim();
            int slash = t.indexOf('/');
            if (slash < 0) {
                return afterCommit(Lsn.parse(t));
            }
            int second = t.indexOf('/', slash + 1);
            int hash = t.indexOf('#', Math.max(second, 0));
            if (second < 0 || hash < 0) {
                throw new IllegalArgumentException("expected commit/command id/seqval#operation");
            }
            int commandId = Integer.parseInt(t.substring(slash + 1, second));
            if (commandId < 0) {
                throw new IllegalArgumentException("a negative command id");
            }
            return afterChange(Lsn.parse(t.substring(0, slash)), commandId,
                    Lsn.parse(t.substring(second + 1, hash)), ChangeOperation.of(Integer.parseInt(t.substring(hash + 1))));
        } catch (RuntimeException e) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Not a SQL Server position: '" + text + "' ("
                    + e.getMessage() + "). Write a commit LSN, 0000002D:000001A8:0003, to start after that commit, "
                    + "or commit/command id/seqval#operation, 0000002D:000001A8:0003/7/0000002D:000001A0:0002#4, to "
                    + "start after that change.");
        }
    }

    /** The commit LSN ({@code __$start_lsn}) of the last change taken, or the commit everything up to is taken. */
    public Lsn commitLsn() {
        return commitLsn;
    }

    /** Whether every change of {@link #commitLsn()} was taken (no sequence value, no operation). */
    public boolean isCommitEnd() {
        return seqval == null;
    }

    /**
     * Whether no change of its commit is taken: the position {@link #beforeCommit} or {@link
     * #announcing} gives (a sequence value in virtual log file 0, which no log record has).
     */
    public boolean isBeforeCommit() {
        return seqval != null && seqval.compareTo(FIRST_LOG_RECORD) < 0;
    }

    /** The {@code __$command_id} of the last change taken; 0 after a commit. */
    public int commandId() {
        return commandId;
    }

    /** The {@code __$seqval} of the last change taken; null after a commit. */
    @Nullable
    public Lsn seqval() {
        return seqval;
    }

    /** The {@code __$operation} of the last change taken; null after a commit. */
    @Nullable
    public ChangeOperation operation() {
        return operation;
    }

    @Override
    public int compareTo(SqlServerPosition other) {
        return ORDER.compare(this, other);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SqlServerPosition)) {
            return false;
        }
        SqlServerPosition p = (SqlServerPosition) o;
        return commitLsn.equals(p.commitLsn) && commandId == p.commandId && Objects.equals(seqval, p.seqval)
                && operation == p.operation;
    }

    @Override
    public int hashCode() {
        return Objects.hash(commitLsn, commandId, seqval, operation);
    }

    /** As {@link #writeTo} writes it. */
    @Override
    public String toString() {
        return PositionString.of(this::writeTo);
    }

    /**
     * {@code 0000002D:000001A8:0003} after a commit, {@code 0000002D:000001A8:0003/7/0000002D:000001A0:0002#4} after
     * a change (commit LSN / command id / sequence value # operation code). Every event's source carries it.
     */
    @Override
    public void writeTo(PositionText out) {
        commitLsn.writeTo(out);
        if (seqval != null) {
            out.text("/").decimal(commandId).text("/");
            seqval.writeTo(out);
            out.text("#").decimal(operation.code());
        }
    }
}
