package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import javax.annotation.Nullable;

/**
 * Where a binlog stream is: the file it reads, the position between transactions (where the next
 * one starts, with the GTIDs executed before it), the transaction it is inside, and the events and
 * changes of that transaction so far. A position inside a transaction is its start plus the events
 * and rows already delivered, so a restart inside a transaction skips those ({@link
 * #deliveredBefore}, {@link #firstToDeliver}) and delivers each row once. Progress records and the
 * ends of transactions go to the stream's pending records.
 */
final class BinlogCursor {
    private final MySqlPosition from;
    /** Whether the binlog was opened at the position's GTIDs rather than its file and offset. */
    private final boolean byGtids;
    /** A chunk's backfill: read to the binlog's end without blocking, as server-id 0. */
    private final boolean backfill;
    private final StreamFailures failures;
    private final Queue<StreamRecord<MySqlPosition>> pending;

    /** The server read ({@link MySqlPosition#server()}), whose binlog files the server's rotations name. */
    private final String server;
    private String file;
    /** Between transactions: where the next one starts, with the GTIDs executed before it. */
    private MySqlPosition committed;
    /** Inside a transaction: where it starts; null between transactions. */
    @Nullable private MySqlPosition transaction;
    @Nullable private String gtid;
    private boolean standalone;
    /** The transaction is an XA PREPARE: its rows are logged before it commits or rolls back. */
    private boolean preparedXa;
    /**
     * Oracle MySQL: the most changes of one XA transaction held until its group's last event says whether it
     * committed ({@link #holdXa}). Tests only may lower it.
     */
    static volatile int maxHeldXaChanges = 100_000;
    /**
     * Oracle MySQL: the transaction began with {@code XA START}, and whether it commits ({@code XA COMMIT ... ONE
     * PHASE}) or is only prepared only its group's last event says (XA_PREPARE, its one-phase flag), which the
     * server writes after the rows: its changes are held until then ({@link #deliver}).
     */
    private boolean holdsXa;
    private final List<StreamRecord<MySqlPosition>> heldXa = new ArrayList<>();
    private long rowEvents;
    /** Changes of the filter's tables in the transaction so far, delivered or skipped on resume: the events' index. */
    private long changesInTransaction;
    private long skipEvents;
    private long skipRows;
    private boolean resumed;
    /** A backfill's first transaction the server sent: where it starts. */
    @Nullable private MySqlPosition firstSent;

    /**
     * @param server the identity of the server read: positions in the files it names are stamped with
     *     it; until its first rotation, the file is {@code from}'s, of {@code from}'s server
     */
    BinlogCursor(MySqlPosition from, String server, boolean byGtids, boolean backfill, StreamFailures failures,
            Queue<StreamRecord<MySqlPosition>> pending) {
        this.from = from;
        this.server = server;
        this.byGtids = byGtids;
        this.backfill = backfill;
        this.failures = failures;
        this.pending = pending;
        this.file = from.file();
        this.committed = from.movedTo(from.file(), from.offset());
    }

    MySqlPosition from() {
        return from;
    }

    boolean byGtids() {
        return byGtids;
    }

    /** Whether the first transaction was begun: the position's skips are applied. */
    boolean resumed() {
        return resumed;
    }

    String file() {
        return file;
    }

    MySqlPosition committed() {
        return committed;
    }

    /** Where the transaction read now starts; null between transactions. */
    @Nullable
    MySqlPosition transaction() {
        return transaction;
    }

    /** The transaction read now, or between transactions the position after the last one. */
    MySqlPosition at() {
        return transaction != null ? transaction : committed;
    }

    /**
     * A backfill's lower bound of where the transactions not in its GTID set are: the start of the
     * first one the server sent, or before one came, how far the server read (skipping the others).
     */
    MySqlPosition sentFrom() {
        return firstSent != null ? firstSent : committed;
    }

    /**
     * A backfill read on to {@code nextPosition} between transactions: a heartbeat (its server skips the
     * transactions of the start's GTIDs, and says how far it read), a file's header (Oracle MySQL's
     * PREVIOUS_GTIDS event, MariaDB's GTID_LIST, the last ones before a file's first transaction), or MariaDB's
     * BINLOG_CHECKPOINT (in a file's header, and later whenever the server writes it): a backfill whose end is
     * just past one reaches it there. Never back: a dump opened inside a file may be sent its header first.
     */
    void passed(long nextPosition) {
        boolean ahead = !file.equals(committed.file()) || nextPosition > committed.offset();
        if (backfill && transaction == null && nextPosition > 0 && ahead) {
            committed = committed.movedTo(file, nextPosition).on(server);
            pending.add(StreamRecord.progress(committed));
        }
    }

    /**
     * Whether an event at {@code position} of the file read now is before this cursor's start: a dump by GTIDs is
     * sent the start's file from its beginning, the groups of GTIDs before the start left out but not the events
     * outside any group (MariaDB sends an incident so).
     */
    boolean beforeStart(long position) {
        return file.equals(from.file()) && position < from.offset();
    }

    void rotate(String toFile, long position) {
        file = toFile;
        // Before the first transaction, the stream is still at its start: by GTIDs the server rotates
        // to the start of the first file it reads, where the GTIDs are not those of the start; from
        // inside a transaction, a checkpoint of the boundary would deliver its first rows again.
        boolean atStart = !resumed && !backfill && (byGtids || from.eventsTaken() > 0 || from.rowsTaken() > 0);
        if (transaction == null && !atStart) {
            committed = committed.movedTo(file, position).on(server);
            pending.add(StreamRecord.progress(committed));
        }
    }

    void begin(long offset, @Nullable String gtid) {
        requireNoneHeld(offset);
        if (!resumed && byGtids && from.transactionGtid() != null && gtid != null && !gtid.equals(from.transactionGtid())) {
            // the rows taken are of a transaction this server does not send first: skipping them here would
            // drop rows of another one, and delivering the position's transaction whole would repeat its rows
            throw failures.otherTransactionFirst(from, gtid);
        }
        transaction = committed.movedTo(file, offset).startOf(gtid).on(server);
        changesInTransaction = 0;
        if (backfill && firstSent == null) {
            firstSent = transaction;
        }
        this.gtid = gtid;
        standalone = false;
        preparedXa = false;
        holdsXa = false;
        rowEvents = 0;
        skipEvents = 0;
        skipRows = 0;
        if (!resumed && (byGtids || file.equals(from.file()) && offset == from.offset())) {
            skipEvents = from.eventsTaken();
            skipRows = from.rowsTaken();
        }
        resumed = true;
    }

    /** Whether the transaction is one statement by itself (DDL), unless a BEGIN follows. */
    boolean standalone() {
        return standalone;
    }

    void standalone(boolean standalone) {
        this.standalone = standalone;
    }

    boolean preparedXa() {
        return preparedXa;
    }

    void preparedXa(boolean preparedXa) {
        this.preparedXa = preparedXa;
    }

    /** Changes of the filter's tables in the transaction read now, so far. */
    long changesInTransaction() {
        return changesInTransaction;
    }

    /** Holds the transaction's changes until its XA group's last event ({@link #xaGroupEnd}). */
    void holdXa() {
        holdsXa = true;
    }

    /** A change of the transaction: to the pending records, or held (see {@link #holdXa}). */
    void deliver(StreamRecord<MySqlPosition> change) {
        if (!holdsXa) {
            pending.add(change);
            return;
        }
        if (heldXa.size() >= maxHeldXaChanges) {
            throw failures.largeXa(firstHeldTable(), transaction, maxHeldXaChanges);
        }
        heldXa.add(change);
    }

    private TableId firstHeldTable() {
        return heldXa.get(0).event().table();
    }

    /**
     * The last event of an XA transaction's group (XA_PREPARE), ending it in the binlog: with {@code onePhase} its
     * commit, and the changes held are delivered; otherwise it was only prepared, and a change held of it fails the
     * stream (its outcome is logged later, without the rows).
     */
    void xaGroupEnd(boolean onePhase, long nextOffset) {
        if (!heldXa.isEmpty()) {
            if (!onePhase) {
                throw failures.preparedXa(firstHeldTable(), transaction);
            }
            pending.addAll(heldXa);
            heldXa.clear();
        }
        commit(nextOffset);
    }

    /** Changes held of an XA transaction whose group ended other than by its XA_PREPARE event would be lost. */
    private void requireNoneHeld(long offset) {
        if (!heldXa.isEmpty()) {
            throw failures.xaGroupUnended(firstHeldTable(), transaction, file + ":" + offset);
        }
    }

    void commit(long nextOffset) {
        requireNoneHeld(nextOffset);
        holdsXa = false;
        committed = (transaction != null ? transaction : committed).committed(file, nextOffset, gtid).on(server);
        transaction = null;
        gtid = null;
        pending.add(StreamRecord.transactionEnd(committed));
    }

    /** The index of the next event of the transaction that counts (a row event, a statement with changes). */
    long nextEvent() {
        return rowEvents++;
    }

    /** Whether the event at {@code index} of the transaction was delivered whole before the restart. */
    boolean deliveredBefore(long index) {
        return index < skipEvents;
    }

    /** The first change of the event at {@code index} not delivered before the restart. */
    int firstToDeliver(long index) {
        return index == skipEvents ? (int) skipRows : 0;
    }

    /** Counts {@code count} changes of the transaction that are not delivered (they were before the restart). */
    void skipped(long count) {
        changesInTransaction += count;
    }

    /** Counts the next change of the transaction: its number among them. */
    long nextChange() {
        return ++changesInTransaction;
    }

    /** The position of change {@code number} (from 1) of the event at {@code index} of the transaction. */
    MySqlPosition inTransaction(long index, int number) {
        return transaction.inTransaction(index, number);
    }

    /**
     * The transaction of a change: its GTID ({@code uuid:number} on Oracle MySQL, {@code
     * domain-server-sequence} on MariaDB), or without one where it starts in the binlog; the change's
     * number among the transaction's changes of the captured tables; the total is not in the binlog
     * before the commit.
     */
    TransactionInfo transactionInfo(long number) {
        String id = gtid != null ? gtid : transaction.file() + ":" + transaction.offset();
        return TransactionInfo.of(id, number, TransactionInfo.UNKNOWN);
    }
}
