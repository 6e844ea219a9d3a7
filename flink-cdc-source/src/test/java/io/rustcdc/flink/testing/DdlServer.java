package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** What a connector gives the DDL-under-writers tests ({@link ColumnDdlUnderWriters}, {@link TableDdlUnderWriters}). */
public interface DdlServer {
    /** The server's name in messages. */
    String name();

    /** A new connection to the test database that may create, change, rename and drop tables. */
    Connection connect() throws SQLException;

    /** Makes the table just created capturable (PostgreSQL: the source role's ownership). */
    default void prepare(Statement s, String table) throws SQLException {}

    /**
     * A streaming source over {@code table} with {@code chunkSize}, {@link ReadGate} as its deserializer;
     * {@code run} is unique per job, for names a source must not share with another (a replication slot).
     */
    CdcSource<String, ?, ?> source(String table, int chunkSize, String run) throws Exception;

    /** Drops what the job's source left on the server (a replication slot); called after the job ended. */
    default void finish(String run) throws Exception {}
}
