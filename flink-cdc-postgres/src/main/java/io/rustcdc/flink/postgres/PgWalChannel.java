package io.rustcdc.flink.postgres;

import java.nio.ByteBuffer;
import java.sql.SQLException;
import javax.annotation.Nullable;

/** Where a {@link PostgresChangeStream} reads the slot's pgoutput messages from, and confirms positions to. */
interface PgWalChannel extends AutoCloseable {

    /** The next message if one is there, without waiting; null if none. Called by the polling thread only. */
    @Nullable
    ByteBuffer readPending() throws SQLException;

    /** A position the server reported past every transaction sent so far, or {@link Lsn#ZERO}. */
    Lsn lastReceived();

    /** Safe from any thread: the slot is told at the next occasion. */
    void confirm(Lsn lsn);

    @Override
    void close();
}
