package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.split.OpenTransaction;
import io.rustcdc.flink.source.split.TestPosition;
import io.rustcdc.flink.testing.Seeds;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The counts of {@link TransactionMarkers}' end markers against a plain count of the same stream: random
 * transactions over a few tables, runs of one table's events and interleaved ones, table ids equal but not the
 * same object (as sources make them), and a restore from {@link TransactionMarkers#open()} at random points
 * (a checkpoint inside a transaction). Replay a run with {@code -Drustcdc.markers.seed=N}.
 */
class TransactionMarkersTest {
    @Test
    void endMarkersCountEveryEmittedEventByTable() {
        Seeds.forEach("rustcdc.markers.seed", "rustcdc.markers.runs", 1, random -> {
            try {
                transactions(random);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void transactions(Random random) throws Exception {
        List<TransactionMarker> markers = new ArrayList<>();
        TransactionMarkers.Sink sink = markers::add;
        TransactionMarkers tracker = new TransactionMarkers(null);
        long position = 0;
        for (int tx = 0; tx < 300; tx++) {
            String id = "tx" + tx;
            Map<TableId, Long> expected = new HashMap<>();
            int events = 1 + random.nextInt(random.nextBoolean() ? 5 : 400);
            TableId table = table(random);
            for (int i = 0; i < events; i++) {
                if (random.nextInt(8) == 0) {
                    table = table(random); // a new run; often of a table seen before, as another object
                }
                ChangeEvent event = ChangeEvent.builder(Op.INSERT, table,
                                SourceInfo.stream("test", new TestPosition(++position), Instant.EPOCH))
                        .transaction(TransactionInfo.of(id, i, TransactionInfo.UNKNOWN)).build();
                tracker.beforeEmitted(event, sink);
                expected.merge(table, 1L, Long::sum);
                if (random.nextInt(50) == 0) {
                    OpenTransaction open = tracker.open();
                    assertThat(open.eventsPerTable()).isEqualTo(expected);
                    tracker = new TransactionMarkers(open);
                }
            }
            tracker.transactionEnded(new TestPosition(++position), sink);
            assertThat(tracker.open()).isNull();
            TransactionMarker end = markers.get(markers.size() - 1);
            assertThat(end.kind()).isEqualTo(TransactionMarker.Kind.END);
            assertThat(end.id()).isEqualTo(id);
            assertThat(end.eventsPerTable()).as("transaction %s", id).isEqualTo(expected);
            assertThat(markers.stream().filter(m -> m.kind() == TransactionMarker.Kind.BEGIN).count()).isEqualTo(tx + 1);
        }
    }

    /** Four tables, each as two equal objects: a source may share one across events and transactions, or not. */
    private static final TableId[] TABLES = new TableId[8];

    static {
        for (int i = 0; i < TABLES.length; i++) {
            TABLES[i] = TableId.of("shop", "public", "t" + i / 2);
        }
    }

    private static TableId table(Random random) {
        return TABLES[random.nextInt(TABLES.length)];
    }
}
