package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MariaDB's UUID, INET4 and INET6, which the binlog's table map writes as BINARY(16) and BINARY(4):
 * the stream gives the text the server itself gives the snapshot, for values that exercise every
 * formatting rule (swapped time-based UUIDs, trailing zero bytes, zero runs, IPv4 forms).
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MariaDbAddressTypesITCase {
    private static final String[][] VALUES = {
        {"'123e4567-e89b-12d3-a456-426655440000'", "'0.0.0.0'", "'::'"},
        {"UUID()", "'255.255.255.255'", "'::1'"},
        {"'f47ac10b-58cc-4372-a567-0e02b2c3d479'", "'192.168.0.1'", "'2001:db8::ff00:42:8329'"},
        {"'00000000-0000-0000-0000-000000000000'", "'10.0.0.0'", "'::ffff:192.168.0.1'"},
        {"'ffffffff-ffff-ffff-ffff-ffffffffffff'", "'1.2.3.4'", "'::192.168.0.1'"},
        {"'01234567-89ab-4def-0123-456789abcdef'", "'127.0.0.1'", "'1:0:0:2:0:0:0:3'"},
        {"'a0000000-0000-1000-8000-000000000000'", "'8.8.8.8'", "'1:0:0:2:0:0:3:4'"},
        {"'00000000-0000-7000-8000-000000000001'", "'0.0.0.1'", "'1:0:2:3:4:5:6:7'"},
        {"NULL", "NULL", "'ABCD:EF01:2345:6789:ABCD:EF01:2345:6789'"},
        {"UUID()", "'9.9.9.9'", "'0:0:0:0:0:ffff:0:1'"},
        {"UUID()", "'9.9.9.9'", "'fe80::'"},
        {"UUID()", "'9.9.9.9'", "'0:0:0:0:0:0:0:1'"},
        {"UUID()", "'9.9.9.9'", "'0:0:0:0:0:0:1:0'"},
        {"UUID()", "'9.9.9.9'", "'1:2:3:4:5:6:7:0'"},
    };

    @Test
    void streamAndSnapshotGiveTheServersText(MySqlDatabase db) throws Exception {
        Assumptions.assumeTrue(db.server().isMariaDb(), "UUID, INET4 and INET6 are MariaDB's");
        db.execute("CREATE TABLE addr (id INT PRIMARY KEY, u UUID, i4 INET4, i6 INET6)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "addr");
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
        }
        List<String> inserts = new ArrayList<>();
        for (int i = 0; i < VALUES.length; i++) {
            inserts.add("INSERT INTO addr VALUES (" + i + ", " + String.join(", ", VALUES[i]) + ")");
        }
        db.execute(inserts.toArray(new String[0]));

        Map<Integer, Row> snapshot = new TreeMap<>();
        TableDescription description;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            description = session.describe(table);
            session.readChunk(description, List.of("id"), null, null,
                    e -> snapshot.put(((Long) e.after().get("id")).intValue(), e.after()));
        }
        Map<Integer, Row> stream = new TreeMap<>();
        ChangeEvent last = null;
        try (ChangeStream<MySqlPosition> changes = connector.openStream(start, TableFilter.all())) {
            for (ChangeEvent e : StreamTestSupport.events(changes, VALUES.length)) {
                stream.put(((Long) e.after().get("id")).intValue(), e.after());
                last = e;
            }
        }
        assertThat(description.rowType().type(description.rowType().indexOf("u")).kind()).isEqualTo(ValueKind.TEXT);
        // text, ordered as the server stores UUIDs (MariaDbUuidOrder), never as text or by the bytes written
        int u = description.rowType().indexOf("u");
        assertThat(connector.keyOrder().orders(description.rowType().type(u))).isFalse();
        assertThat(description.collation(u)).isEqualTo(MySqlKeyOrder.UUID);
        assertThat(connector.keyOrder().orders(description.rowType().type(u), description.collation(u))).isTrue();
        assertThat(description.collation(description.rowType().indexOf("i6"))).as("INET6 is not ordered").isNull();
        assertThat(stream).isEqualTo(snapshot);
        assertThat(last.shape()).as("the catalogue agrees with the table map").isEqualTo(description.shape());
        assertThat(snapshot.get(0).get("u")).isEqualTo("123e4567-e89b-12d3-a456-426655440000");
        assertThat(snapshot.get(2).get("i6")).isEqualTo("2001:db8::ff00:42:8329");
        assertThat(snapshot.get(3).get("i6")).isEqualTo("::ffff:192.168.0.1");
        assertThat(snapshot.get(3).get("i4")).isEqualTo("10.0.0.0");
        assertThat(snapshot.get(8).get("u")).isNull();
        // every value as the server prints it, compared with the server's own text
        for (int id : snapshot.keySet()) {
            List<String> text = db.query("SELECT CAST(u AS CHAR), CAST(i4 AS CHAR), CAST(i6 AS CHAR) FROM addr WHERE id = " + id)
                    .get(0);
            assertThat(List.of(String.valueOf(stream.get(id).get("u")), String.valueOf(stream.get(id).get("i4")),
                    String.valueOf(stream.get(id).get("i6")))).as("row %d", id).isEqualTo(
                    text.stream().map(String::valueOf).collect(java.util.stream.Collectors.toList()));
        }
    }
}
