package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkOrigins;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A chunk's mark names the table it read by object_id, and the framework's comparison of a table's
 * chunks ({@link ChunkOrigins}) with this connector's {@code tableIdentity}: a table dropped and created
 * again between two chunks fails the source, a mark from state without an object_id is compared with
 * nothing.
 */
class SqlServerChunkMarkTest {
    private static final TableId ORDERS = TableId.of("shop", "dbo", "orders");
    private static final TableId LINES = TableId.of("shop", "dbo", "lines");
    private static final Lsn END = Lsn.parse("0000002D:000001A8:0003");
    private static final ChunkKey KEY = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
            SqlServerKeyOrder.INSTANCE);

    private final SqlServerConnector connector = SqlServerConnector.create(SqlServerSourceConfig.builder()
            .hostname("db").username("cdc").password(Secret.of("secret")).database("shop").build());
    private final ChunkOrigins<SqlServerChunkMark> origins = new ChunkOrigins<>(connector::tableIdentity);

    @Test
    void aMarkNamesItsTableByObjectIdOrNothingWithoutOne() {
        SqlServerChunkMark mark = SqlServerChunkMark.of(END, 581577110);
        assertThat(mark.logEnd()).isEqualTo(END);
        assertThat(mark.objectId()).isEqualTo(581577110);
        assertThat(connector.tableIdentity(mark)).hasToString("object_id 581577110");
        assertThat(mark).hasToString("0000002D:000001A8:0003 object_id 581577110");
        SqlServerChunkMark old = SqlServerChunkMark.withoutObject(END);
        assertThat(old.objectId()).isEqualTo(SqlServerChunkMark.UNKNOWN_OBJECT);
        assertThat(connector.tableIdentity(old)).isNull();
        assertThat(old).hasToString("0000002D:000001A8:0003").isNotEqualTo(mark);
        assertThat(SqlServerChunkMark.of(END, 581577110)).isEqualTo(mark).hasSameHashCodeAs(mark);
        assertThat(SqlServerChunkMark.of(END, -1)).as("a negative object_id is an object too")
                .isNotEqualTo(old);
        assertThatThrownBy(() -> SqlServerChunkMark.of(END, SqlServerChunkMark.UNKNOWN_OBJECT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void chunksOfOneTableFromOneObjectPass() {
        assertThatCode(() -> {
            origins.read(chunk(ORDERS, 0, 581577110));
            origins.read(chunk(LINES, 0, 613577224)); // another table, its own object
            origins.read(chunk(ORDERS, 1, 581577110));
        }).doesNotThrowAnyException();
    }

    @Test
    void aTableCreatedAgainBetweenTwoChunksFailsNamingTheTableBothObjectIdsAndTheRemedy() {
        origins.read(chunk(ORDERS, 0, 581577110));
        origins.read(chunk(ORDERS, 1, 581577110));
        assertThatThrownBy(() -> origins.read(chunk(ORDERS, 2, 645577338)))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("Table dbo.orders was replaced while its snapshot was read")
                .hasMessageContaining("(chunk 0 from object_id 581577110, chunk 2 from object_id 645577338)")
                .hasMessageContaining("Start the source without state to snapshot the table again");
    }

    @Test
    void marksOfOlderStateAreComparedWithNothing() {
        origins.read(chunk(ORDERS, 0, SqlServerChunkMark.UNKNOWN_OBJECT)); // restored from state version 1
        origins.read(chunk(ORDERS, 1, 581577110));
        origins.read(chunk(ORDERS, 2, SqlServerChunkMark.UNKNOWN_OBJECT));
        assertThatThrownBy(() -> origins.read(chunk(ORDERS, 3, 645577338)))
                .hasMessageContaining("chunk 1 from object_id 581577110, chunk 3 from object_id 645577338");
    }

    private static ChunkSplit<SqlServerChunkMark> chunk(TableId table, int index, int objectId) {
        SqlServerChunkMark mark = objectId == SqlServerChunkMark.UNKNOWN_OBJECT ? SqlServerChunkMark.withoutObject(END)
                : SqlServerChunkMark.of(END, objectId);
        return ChunkSplit.<SqlServerChunkMark>of(table, KEY, index, null, null).finished(mark);
    }
}
