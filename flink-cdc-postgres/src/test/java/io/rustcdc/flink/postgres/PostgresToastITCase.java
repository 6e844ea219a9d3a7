package io.rustcdc.flink.postgres;

import static io.rustcdc.flink.testing.StreamTestSupport.events;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Unchanged TOASTed values, which an update does not send without REPLICA IDENTITY FULL: what
 * pgoutput sends, {@code toast.reselect} (values read from the table by key, exact against the
 * insert's own values; the races with a later update, a delete and a schema change), and the start's
 * check of the columns a consumer requires in every update. Values are random and incompressible,
 * stored out of line; {@code -Drustcdc.toast.seed=N} replays a run.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresToastITCase {
    private static final long SEED = Long.getLong("rustcdc.toast.seed", System.nanoTime());

    private PostgresDatabase db;
    private String slot;
    private Random random;

    @BeforeEach
    void setUp(PostgresDatabase db, TestInfo test) {
        this.db = db;
        String name = test.getTestMethod().get().getName();
        this.slot = "toast_" + Integer.toUnsignedString(name.hashCode(), 36);
        this.random = new Random(SEED + slot.hashCode());
        System.out.println("PostgresToastITCase." + name + ": seed " + SEED + " (replay: -Drustcdc.toast.seed=" + SEED + ")");
        db.execute("DROP TABLE IF EXISTS docs, keyed, plain, parts CASCADE",
                "CREATE TABLE docs (id int PRIMARY KEY, small text, big text, doc jsonb, bin bytea, tags text[], n int)",
                "ALTER TABLE docs ALTER COLUMN big SET STORAGE EXTERNAL",
                "ALTER TABLE docs OWNER TO " + db.replicationUser());
    }

    private PostgresConnector connector(boolean reselect) {
        return PostgresConnector.create(PostgresTestConfigs.builder(db).slotName(slot).publicationName(slot)
                .createSlotIfMissing(true).createPublicationIfMissing(true).toastReselect(reselect).build());
    }

    private PostgresPosition prepare(PostgresConnector connector, String... tables) {
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            return session.prepareStream(List.of(tables).stream().map(this::table).toList(), false);
        }
    }

    private TableId table(String name) {
        return TableId.of(db.name(), "public", name);
    }

    /** Random text of {@code length} characters over most of Unicode: incompressible, quotes and backslashes included. */
    private String text(int length) {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < length) {
            int cp = random.nextInt(10) == 0 ? "'\\\"\t\n".charAt(random.nextInt(5)) : 0x21 + random.nextInt(0x2FFF);
            if (!Character.isSurrogate((char) cp)) {
                sb.appendCodePoint(cp);
            }
        }
        return sb.toString();
    }

    private String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** An insert of row {@code id} with out-of-line text, jsonb, bytea and array values. */
    private String insert(int id) {
        byte[] bytes = new byte[6000];
        random.nextBytes(bytes);
        StringBuilder doc = new StringBuilder("{\"a\": [");
        for (int i = 0; i < 150; i++) {
            doc.append(i == 0 ? "" : ", ").append('"').append(HexFormat.of().formatHex(randomBytes(16))).append('"');
        }
        doc.append("], \"b\": null}");
        return "INSERT INTO docs VALUES (" + id + ", 'a', " + literal(text(3000)) + ", " + literal(doc.toString())
                + ", '\\x" + HexFormat.of().formatHex(bytes) + "', ARRAY[" + literal(text(1500)) + ", NULL, "
                + literal(text(1500)) + "], 1)";
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static final List<String> TOASTED = List.of("big", "doc", "bin", "tags");

    @Test
    void withoutTheOptionUnchangedValuesAreAbsentAndAToastedKeyComesFromTheOldKey() throws Exception {
        db.execute("CREATE TABLE keyed (k text PRIMARY KEY, small text)", "ALTER TABLE keyed ALTER COLUMN k SET STORAGE EXTERNAL",
                "ALTER TABLE keyed OWNER TO " + db.replicationUser());
        PostgresConnector connector = connector(false);
        PostgresPosition start = prepare(connector, "docs", "keyed");
        // 2500 bytes: over the 2 kB at which a row is TOASTed, under the 2704 bytes of a btree index entry
        StringBuilder key = new StringBuilder();
        while (key.length() < 2500) {
            key.append((char) (0x21 + random.nextInt(0x5E)));
        }
        db.execute(insert(1), "UPDATE docs SET small = 'b' WHERE id = 1",
                "INSERT INTO keyed VALUES (" + literal(key.toString()) + ", 'a')", "UPDATE keyed SET small = 'b'");
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            List<ChangeEvent> events = events(stream, 4);
            ChangeEvent update = events.get(1);
            assertThat(update.before()).as("DEFAULT identity, key unchanged: no old row").isNull();
            assertThat(update.unchangedColumns()).containsExactlyElementsOf(TOASTED);
            ChangeEvent keyUpdate = events.get(3);
            assertThat(keyUpdate.before().get("k")).as("PostgreSQL logs the old key of a key stored out of line")
                    .isEqualTo(key.toString());
            assertThat(keyUpdate.unchangedColumns()).as("the unchanged key is the old key's").isEmpty();
            assertThat(keyUpdate.after().get("k")).isEqualTo(key.toString());
            assertThat(keyUpdate.after().get("small")).isEqualTo("b");
        }
    }

    @Test
    void reselectFillsEveryUnchangedValueExactlyAsTheInsertSentIt() throws Exception {
        PostgresConnector connector = connector(true);
        PostgresPosition start = prepare(connector, "docs");
        db.execute(insert(1), insert(2));
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            List<ChangeEvent> events = new ArrayList<>(events(stream, 2));
            // one change at a time, each read before the next is written: no later change to see
            db.execute("UPDATE docs SET small = 'b', n = 2 WHERE id = 1");
            events.addAll(events(stream, 1));
            db.execute("UPDATE docs SET id = 3, small = 'c' WHERE id = 2"); // a key change: the old key is sent
            events.addAll(events(stream, 1));
            db.execute("UPDATE docs SET doc = '{\"new\": true}', tags = NULL WHERE id = 1");
            events.addAll(events(stream, 1));
            Row inserted1 = events.get(0).after();
            Row inserted2 = events.get(1).after();
            ChangeEvent update = events.get(2);
            assertThat(update.unchangedColumns()).isEmpty();
            for (String column : TOASTED) {
                assertThat(update.after().get(column)).as(column).isEqualTo(inserted1.get(column));
            }
            assertThat(update.after().get("small")).isEqualTo("b");
            ChangeEvent moved = events.get(3);
            assertThat(moved.before().get("id")).isEqualTo(2L);
            assertThat(moved.after().get("id")).isEqualTo(3L);
            for (String column : TOASTED) {
                assertThat(moved.after().get(column)).as(column).isEqualTo(inserted2.get(column));
            }
            ChangeEvent partly = events.get(4);
            assertThat(partly.after().get("doc")).isEqualTo("{\"new\": true}");
            assertThat(partly.after().get("tags")).isNull();
            assertThat(partly.after().get("big")).isEqualTo(inserted1.get("big"));
            assertThat(partly.after().get("bin")).isEqualTo(inserted1.get("bin"));
        }
    }

    /**
     * The stream is opened after the writes, so every re-read runs after all of them committed: a
     * later update's value is attached to the earlier update and then arrives with its own change; a
     * row deleted or moved to another key leaves the values absent, and its delete or key change
     * follows.
     */
    @Test
    void reselectReadsTheRowAsItIsThenAndTheLaterChangesFollow() throws Exception {
        PostgresConnector connector = connector(true);
        PostgresPosition start = prepare(connector, "docs");
        String later = text(3000);
        db.execute(insert(1), insert(2), insert(3),
                "UPDATE docs SET small = 'b' WHERE id = 1", "UPDATE docs SET big = " + literal(later) + " WHERE id = 1",
                "UPDATE docs SET small = 'b' WHERE id = 2", "DELETE FROM docs WHERE id = 2",
                "UPDATE docs SET small = 'b' WHERE id = 3", "UPDATE docs SET id = 4 WHERE id = 3");
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            List<ChangeEvent> events = events(stream, 9);
            ChangeEvent early = events.get(3);
            assertThat(early.after().get("small")).isEqualTo("b");
            assertThat(early.after().get("big")).as("the later update's value, read after it committed").isEqualTo(later);
            assertThat(events.get(4).after().get("big")).as("the later update follows with it").isEqualTo(later);
            ChangeEvent beforeDelete = events.get(5);
            assertThat(beforeDelete.unchangedColumns()).as("the row was gone when read: absent, never null")
                    .containsExactlyElementsOf(TOASTED);
            assertThat(events.get(6).op()).isEqualTo(Op.DELETE);
            assertThat(events.get(7).unchangedColumns()).as("moved to another key before the read")
                    .containsExactlyElementsOf(TOASTED);
            ChangeEvent move = events.get(8);
            assertThat(move.before().get("id")).isEqualTo(3L);
            assertThat(move.after().get("big")).isEqualTo(events.get(2).after().get("big"));
        }
    }

    @Test
    void reselectFailsWhenAColumnChangedBeforeTheRead() throws Exception {
        PostgresConnector connector = connector(true);
        PostgresPosition start = prepare(connector, "docs");
        db.execute(insert(1), "UPDATE docs SET small = 'b' WHERE id = 1", "ALTER TABLE docs DROP COLUMN bin");
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThatThrownBy(() -> events(stream, 2)).isInstanceOfSatisfying(CdcException.class, e -> {
                assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE);
                assertThat(e).hasMessageContaining("The unchanged TOASTed values of big, doc, bin, tags that an update "
                        + "of public.docs at ").hasMessageContaining("the table changed since")
                        .hasMessageContaining("REPLICA IDENTITY FULL");
            });
        }
        db.execute("ALTER TABLE docs ADD COLUMN bin text");
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThatThrownBy(() -> events(stream, 2)).isInstanceOfSatisfying(CdcException.class, e -> assertThat(e)
                    .hasMessageContaining("a column was dropped, renamed or retyped"));
        }
        // the documented limit: a column of the same name and type added since is read as the table holds it now
        db.execute("ALTER TABLE docs DROP COLUMN bin", "ALTER TABLE docs ADD COLUMN bin bytea");
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            ChangeEvent update = events(stream, 2).get(1);
            assertThat(update.unchangedColumns()).isEmpty();
            assertThat(update.after().get("bin")).isNull();
        }
    }

    @Test
    void rowLevelSecurityThatWouldHideTheRowFailsTheReadInsteadOfPassingItForDeleted() throws Exception {
        PostgresConnector connector = connector(true);
        PostgresPosition start = prepare(connector, "docs");
        db.execute(insert(1), "UPDATE docs SET small = 'b' WHERE id = 1", "ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
                "ALTER TABLE docs FORCE ROW LEVEL SECURITY", "CREATE POLICY hide_all ON docs USING (false)");
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThatThrownBy(() -> events(stream, 2)).isInstanceOfSatisfying(CdcException.class, e -> {
                assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
                assertThat(e).hasMessageContaining("query would be affected by row-level security policy for table");
            });
        }
    }

    @Test
    void theStartRefusesRequiredColumnsAnUpdateCouldLeaveOut() {
        // varchar(5) in UTF8 and numeric(12,2) are at most 24 bytes, which the toaster never moves out of line
        db.execute("CREATE TABLE keyed (k text PRIMARY KEY, big text, doc jsonb, code varchar(10), n numeric, i int, "
                        + "short varchar(5), amount numeric(12,2), codes varchar(3)[])",
                "CREATE TABLE plain (id int PRIMARY KEY, code varchar(10), i int)", // no TOAST table
                "CREATE TABLE parts (id int, k int, body text, PRIMARY KEY (id, k)) PARTITION BY RANGE (k)",
                "CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (10)",
                "ALTER TABLE keyed OWNER TO " + db.replicationUser(), "ALTER TABLE plain OWNER TO " + db.replicationUser(),
                "ALTER TABLE parts OWNER TO " + db.replicationUser(), "ALTER TABLE parts_1 OWNER TO " + db.replicationUser());
        List<String> keyed = List.of("k", "big", "doc", "code", "n", "i", "short", "amount", "codes");
        assertThatThrownBy(() -> prepare(required("keyed", keyed, false), "keyed"))
                .isInstanceOfSatisfying(CdcException.class, e -> {
                    assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
                    assertThat(e).hasMessageStartingWith("Columns big (text), doc (jsonb), code (character varying(10)), "
                                    + "n (numeric), codes (character varying(3)[]) of public.keyed can be stored out of "
                                    + "line (TOASTed), and the table's REPLICA IDENTITY is DEFAULT")
                            .hasMessageContaining("but the test consumer needs each of them in every update")
                            .hasMessageContaining("ALTER TABLE \"public\".\"keyed\" REPLICA IDENTITY FULL;")
                            .hasMessageContaining("set 'toast.reselect' = 'true'");
                });
        prepare(required("keyed", List.of("k", "i", "short", "amount"), false), "keyed"); // the key: from the old key
        prepare(required("keyed", keyed, true), "keyed");
        prepare(required("plain", List.of("id", "code", "i"), false), "plain");
        assertThatThrownBy(() -> prepare(required("parts", List.of("id", "k", "body"), false), "parts"))
                .hasMessageStartingWith("Column body (text) of public.parts can be stored out of line");
        db.execute("ALTER TABLE keyed REPLICA IDENTITY FULL");
        prepare(required("keyed", keyed, false), "keyed");
        db.execute("ALTER TABLE keyed REPLICA IDENTITY USING INDEX keyed_pkey");
        assertThatThrownBy(() -> prepare(required("keyed", keyed, false), "keyed"))
                .hasMessageContaining("REPLICA IDENTITY is USING INDEX");
    }

    private PostgresConnector required(String table, List<String> columns, boolean reselect) {
        return PostgresConnector.create(PostgresTestConfigs.builder(db).slotName(slot).publicationName("required_" + table)
                .createSlotIfMissing(true).createPublicationIfMissing(true).toastReselect(reselect)
                .requireInUpdates(table(table), columns, "the test consumer").build());
    }
}
