package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.List;
import javax.annotation.Nullable;

/** A test session that only reads chunks (and what a subclass adds): the catalogue's other work is not expected. */
abstract class ChunkOnlySession<M> implements CatalogSession<TestPosition, M> {
    @Override
    public void checkSnapshotPrerequisites(List<TableId> tables) {
        throw new UnsupportedOperationException();
    }

    @Override
    public TestPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<TableId> discoverTables(TableFilter filter) {
        throw new UnsupportedOperationException();
    }

    @Override
    @Nullable
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            int chunkSize) {
        throw new UnsupportedOperationException();
    }

    @Override
    public TestPosition currentPosition() {
        throw new UnsupportedOperationException();
    }
}
