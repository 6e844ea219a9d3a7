package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.postgres.testing.SlotChecks;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Statements on a type that rewrite how the captured rows holding its values read, without logging a change of
 * them: an enum label renamed, a composite type's attributes added or dropped. Downstream those rows would keep
 * their old text; the slot check finds the change and fails the stream ({@code STATE}), naming the type, reached
 * directly, through an array, a domain, a range, a multirange or a nested composite. A label added, an attribute
 * renamed, a type renamed and a label renamed while no column held the type change no value's text and pass.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresTypeDdlITCase {
    private static final String SLOT = "type_ddl";

    private PostgresDatabase db;

    @BeforeEach
    void setUp(PostgresDatabase db) {
        this.db = db;
        db.execute("DROP PUBLICATION IF EXISTS " + SLOT, "DROP TABLE IF EXISTS typed",
                "DROP TYPE IF EXISTS solo, pair_outer, pair, pair_r, mood_range, flavor, shade_range, shade, size_d, size, "
                        + "color, mood CASCADE",
                "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", "CREATE TYPE color AS ENUM ('red', 'green')",
                "CREATE TYPE size AS ENUM ('small', 'large')", "CREATE DOMAIN size_d AS size",
                "CREATE TYPE flavor AS ENUM ('sweet', 'sour')", "CREATE TYPE mood_range AS RANGE (subtype = flavor)",
                "CREATE TYPE shade AS ENUM ('dark', 'light')", "CREATE TYPE shade_range AS RANGE (subtype = shade)",
                "CREATE TYPE pair AS (a int, b text)", "CREATE TYPE pair_outer AS (p pair, n int)",
                "CREATE TYPE solo AS (x int)",
                "CREATE TABLE typed (id int PRIMARY KEY, m mood, cs color[], s size_d, r mood_range, p pair_outer, "
                        + "sm shade_multirange, so solo)",
                "INSERT INTO typed VALUES (1, 'sad', '{red,green}', 'small', '[sweet,sour]', ROW(ROW(1, 'x'), 2), "
                        + "'{[dark,light]}', ROW(3))",
                "ALTER TABLE typed OWNER TO " + db.replicationUser());
    }

    @AfterEach
    void tearDown() {
        db.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + SLOT
                + "' AND NOT active", "DROP PUBLICATION IF EXISTS " + SLOT, "DROP TABLE IF EXISTS typed",
                "DROP TYPE IF EXISTS solo, pair_outer, pair, pair_r, mood_range, flavor, shade_range, shade, size_d, size, "
                        + "color, mood CASCADE");
    }

    @Test
    void anEnumLabelRenamedWhileStreamingFailsTheStreamWhereverTheEnumIsReached() throws Exception {
        PostgresPosition start = prepare();
        List<String[]> renames = List.of(new String[] {"mood", "sad", "blue"}, new String[] {"color", "red", "crimson"},
                new String[] {"size", "small", "little"}, new String[] {"flavor", "sour", "tart"},
                new String[] {"shade", "dark", "dim"});
        try (ChangeStream<PostgresPosition> stream = open(start)) {
            // a type no longer reached is forgotten: renamed while no column holds it, then reached again, it passes
            db.execute("ALTER TABLE typed DROP COLUMN cs");
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER TYPE color RENAME VALUE 'green' TO 'lime'", "ALTER TABLE typed ADD COLUMN cs color[]",
                    "UPDATE typed SET cs = '{red,lime}'");
            SlotChecks.pollUntilACheckPassed(db, stream);
        }
        for (String[] rename : renames) {
            try (ChangeStream<PostgresPosition> stream = open(start)) {
                db.execute("ALTER TYPE " + rename[0] + " ADD VALUE 'other'", "UPDATE typed SET id = id");
                StreamTestSupport.events(stream, 1);
                SlotChecks.pollUntilACheckPassed(db, stream);
                String before = db.queryValue("SELECT typed::text FROM typed");
                db.execute("ALTER TYPE " + rename[0] + " RENAME VALUE '" + rename[1] + "' TO '" + rename[2] + "'");
                assertThat(db.queryValue("SELECT typed::text FROM typed")).as("the row reads otherwise")
                        .isNotEqualTo(before).contains(rename[2]);
                CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
                System.out.println("enum label renamed: " + failure);
                assertThat(failure.kind()).isEqualTo(CdcException.Kind.STATE);
                assertThat(failure).hasMessageContaining("The label '" + rename[1] + "' of enum type " + rename[0]
                                + " was renamed to '" + rename[2] + "'")
                        .hasMessageContaining("slot '" + SLOT + "'")
                        .hasMessageContaining("Restart the job without its state with a new slot");
            }
        }
    }

    @Test
    void aCompositeTypesAttributesChangedWhileStreamingFailsTheStream() throws Exception {
        PostgresPosition start = prepare();
        try (ChangeStream<PostgresPosition> stream = open(start)) {
            db.execute("ALTER TYPE pair RENAME ATTRIBUTE b TO c", "ALTER TYPE pair RENAME TO pair_r",
                    "UPDATE typed SET id = id");
            StreamTestSupport.events(stream, 1);
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER TYPE pair_r ADD ATTRIBUTE d int");
            assertThat(db.queryValue("SELECT p::text FROM typed")).isEqualTo("(\"(1,x,)\",2)");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("composite attribute added: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.STATE);
            assertThat(failure).hasMessageContaining("The attributes of composite type pair_r changed from "
                    + "(integer, text) to (integer, text, integer)");
        }
        try (ChangeStream<PostgresPosition> stream = open(start)) {
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER TYPE pair_outer DROP ATTRIBUTE n");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.STATE);
            assertThat(failure).hasMessageContaining("composite type pair_outer changed from (pair_r, integer) to (pair_r)");
        }
        try (ChangeStream<PostgresPosition> stream = open(start)) {
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER TYPE solo DROP ATTRIBUTE x");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            assertThat(failure).hasMessageContaining("composite type solo changed from (integer) to ()");
        }
    }

    private ChangeStream<PostgresPosition> open(PostgresPosition from) {
        return PostgresConnector.create(PostgresTestConfigs.builder(db).slotName(SLOT).publicationName(SLOT)
                .slotCheckInterval(Duration.ofSeconds(1)).build()).openStream(from, TableFilter.all());
    }

    /** The slot and the publication for table typed: the start position. */
    private PostgresPosition prepare() {
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session =
                PostgresConnector.create(PostgresTestConfigs.streaming(db, SLOT)).openSession()) {
            return session.prepareStream(List.of(TableId.of(db.name(), "public", "typed")), false);
        }
    }
}
