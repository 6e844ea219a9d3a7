package io.rustcdc.flink.e2e;

import io.rustcdc.flink.e2e.compat.JobSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Appends each record to the table {@code changelog(seq bigserial, event text)} of a PostgreSQL
 * database, exactly once: the records of a checkpoint become one batch, written in one transaction
 * when the checkpoint completes, together with the batch's id in {@code changelog_batches(id text
 * primary key)}, so a batch committed again after a failure is written once.
 */
public final class ChangelogTableSink extends JobSink<String> implements SupportsCommitter<ChangelogTableSink.Batch> {
    private static final long serialVersionUID = 1L;

    private final String jdbcUrl;
    private final String user;
    private final String password;

    public ChangelogTableSink(String jdbcUrl, String user, String password) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
    }

    /** The records of one checkpoint of one writer. */
    public record Batch(String id, List<String> records) {}

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) {
        return new Writer();
    }

    @Override
    public Committer<Batch> createCommitter(CommitterInitContext context) {
        return new TableCommitter();
    }

    @Override
    public SimpleVersionedSerializer<Batch> getCommittableSerializer() {
        return new BatchSerializer();
    }

    private static final class Writer implements CommittingSinkWriter<String, Batch> {
        private List<String> records = new ArrayList<>();

        @Override
        public void write(String record, Context context) {
            records.add(record);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public Collection<Batch> prepareCommit() {
            if (records.isEmpty()) {
                return List.of();
            }
            Batch batch = new Batch(UUID.randomUUID().toString(), records);
            records = new ArrayList<>();
            return List.of(batch);
        }

        @Override
        public void close() {}
    }

    private final class TableCommitter implements Committer<Batch> {
        private Connection connection;

        @Override
        public void commit(Collection<CommitRequest<Batch>> requests) throws IOException {
            try {
                Connection c = connection();
                for (CommitRequest<Batch> request : requests) {
                    write(c, request.getCommittable());
                }
            } catch (SQLException e) {
                close();
                throw new IOException("Could not write a batch to " + jdbcUrl, e);
            }
        }

        private void write(Connection c, Batch batch) throws SQLException {
            try (PreparedStatement mark = c.prepareStatement(
                    "INSERT INTO changelog_batches(id) VALUES (?) ON CONFLICT DO NOTHING");
                    PreparedStatement insert = c.prepareStatement("INSERT INTO changelog(event) VALUES (?)")) {
                mark.setString(1, batch.id());
                if (mark.executeUpdate() == 1) {
                    for (String record : batch.records()) {
                        insert.setString(1, record);
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        }

        private Connection connection() throws SQLException {
            if (connection == null) {
                Properties props = new Properties();
                props.setProperty("user", user);
                props.setProperty("password", password);
                connection = DriverManager.getConnection(jdbcUrl, props);
                connection.setAutoCommit(false);
            }
            return connection;
        }

        @Override
        public void close() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException e) {
                    // closing after a failure
                }
                connection = null;
            }
        }
    }

    private static final class BatchSerializer implements SimpleVersionedSerializer<Batch> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Batch batch) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            out.writeUTF(batch.id());
            out.writeInt(batch.records().size());
            for (String record : batch.records()) {
                byte[] bytes = record.getBytes(StandardCharsets.UTF_8);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Batch deserialize(int version, byte[] serialized) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            String id = in.readUTF();
            int n = in.readInt();
            List<String> records = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                records.add(new String(bytes, StandardCharsets.UTF_8));
            }
            return new Batch(id, records);
        }
    }
}
