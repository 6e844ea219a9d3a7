package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.TestConnector;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.annotation.Nullable;

/**
 * A connector for the enumerator's unit tests: tables of {@code BIGINT} keys held in memory, a
 * position that counts up, and a record of every catalogue call with the thread it ran on. A call
 * can be made to fail, or to wait for the test. Not a database: the enumerator's database work is
 * proven against real servers by the connectors' ITs.
 */
final class RecordingConnector extends TestConnector {
    private static final long serialVersionUID = 1L;

    /** One catalogue call: its name and the thread it ran on. */
    record Call(String name, Thread thread) {}

    final Map<TableId, NavigableSet<Long>> tables = new LinkedHashMap<>();
    final List<Call> calls = new CopyOnWriteArrayList<>();
    final AtomicLong position = new AtomicLong(100);
    final AtomicInteger sessionsOpen = new AtomicInteger();
    final List<Thread> closedOn = new CopyOnWriteArrayList<>();
    /** Calls to fail, by name, with the exception given. */
    final Map<String, RuntimeException> failures = new ConcurrentHashMap<>();
    /** What keeps the chunk key out of the old rows of a table, by table name (keyMissingFromOldRows). */
    final Map<String, String> oldRowProblems = new ConcurrentHashMap<>();
    /** Descriptions that replace {@link #describe(TableId)}'s, by table name: a table altered. */
    final Map<String, TableDescription> altered = new ConcurrentHashMap<>();
    /** Whether nextChunkEnd gives the key it was asked after, once there is one: a key decoded otherwise than compared. */
    volatile boolean stuckEnds;
    /** When set, nextChunkEnd tells {@link #blocked} and waits for this latch. */
    @Nullable volatile CountDownLatch release;
    final CountDownLatch blocked = new CountDownLatch(1);

    RecordingConnector table(String name, long... keys) {
        NavigableSet<Long> set = new TreeSet<>();
        for (long k : keys) {
            set.add(k);
        }
        tables.put(TableId.of("db", "s", name), set);
        return this;
    }

    static TableDescription describe(TableId table) {
        RowShape shape = RowShape.of(table.schema(), table.table(), List.of(RowShape.Column.of("id", "bigint", false),
                RowShape.Column.of("v", "text", true)), List.of("id"));
        return TableDescription.of(table, shape, RowType.of(List.of("id", "v"),
                List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.TEXT))));
    }

    List<Call> callsNamed(String name) {
        return calls.stream().filter(c -> c.name().equals(name)).toList();
    }

    @Override
    public String name() {
        return "recording";
    }

    @Override
    public CatalogSession<TestPosition, Long> openSession() {
        record("openSession");
        sessionsOpen.incrementAndGet();
        return new Session();
    }

    @Override
    public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
        throw new UnsupportedOperationException("the enumerator opens no stream");
    }

    private void record(String call) {
        calls.add(new Call(call, Thread.currentThread()));
        RuntimeException failure = failures.get(call);
        if (failure != null) {
            throw failure;
        }
    }

    private final class Session implements CatalogSession<TestPosition, Long> {
        private boolean closed;

        @Override
        public void checkSnapshotPrerequisites(List<TableId> tables) {
            use("checkSnapshotPrerequisites");
        }

        @Override
        public TestPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
            use("prepareStream");
            return new TestPosition(position.get());
        }

        @Override
        public List<TableId> discoverTables(TableFilter filter) {
            use("discoverTables");
            synchronized (RecordingConnector.this.tables) {
                return new ArrayList<>(RecordingConnector.this.tables.keySet());
            }
        }

        @Override
        @Nullable
        public String keyMissingFromOldRows(TableId table, List<String> keyColumns) {
            return oldRowProblems.get(table.table());
        }

        @Override
        public TableDescription describe(TableId table) {
            use("describe");
            return altered.getOrDefault(table.table(), RecordingConnector.describe(table));
        }

        @Override
        @Nullable
        public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
                int chunkSize) {
            use("nextChunkEnd");
            CountDownLatch latch = release;
            if (latch != null) {
                blocked.countDown();
                try {
                    if (!latch.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test did not release nextChunkEnd");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CdcException(CdcException.Kind.CONNECTION, "interrupted", e);
                }
            }
            if (stuckEnds && after != null) {
                return after.clone();
            }
            synchronized (tables) {
                NavigableSet<Long> keys = tables.get(table.table());
                NavigableSet<Long> rest = after == null ? keys : keys.tailSet((Long) after[0], false);
                int i = 0;
                for (Long key : rest) {
                    if (++i == chunkSize) {
                        return new Object[] {key};
                    }
                }
                return null;
            }
        }

        /** Row filter {@code even} selects the even keys; one containing {@code bad} the "server" rejects. */
        @Override
        @Nullable
        public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
                int chunkSize, @Nullable String rowFilter) {
            if (rowFilter == null) {
                return nextChunkEnd(table, keyColumns, after, chunkSize);
            }
            use("nextChunkEnd " + rowFilter);
            if (!rowFilter.equals("even")) {
                throw new IllegalStateException("the test connector knows only the row filter 'even'");
            }
            if (stuckEnds && after != null) {
                return after.clone();
            }
            synchronized (tables) {
                NavigableSet<Long> keys = tables.get(table.table());
                NavigableSet<Long> rest = after == null ? keys : keys.tailSet((Long) after[0], false);
                int i = 0;
                for (Long key : rest) {
                    if (key % 2 == 0 && ++i == chunkSize) {
                        return new Object[] {key};
                    }
                }
                return null;
            }
        }

        @Override
        @Nullable
        public String rowFilterProblem(TableDescription table, String rowFilter) {
            use("rowFilterProblem " + rowFilter);
            return rowFilter.contains("bad") ? "ERROR: syntax error at or near \"bad\"" : null;
        }

        @Override
        public Long readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
                @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
            throw new UnsupportedOperationException("the enumerator reads no chunk");
        }

        @Override
        public TestPosition currentPosition() {
            use("currentPosition");
            return new TestPosition(position.get());
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                closedOn.add(Thread.currentThread());
                sessionsOpen.decrementAndGet();
            }
        }

        private void use(String call) {
            if (closed) {
                throw new IllegalStateException(call + " on a closed session");
            }
            record(call);
        }
    }
}
