package io.rustcdc.flink.testing.transactions;

import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TransactionMarker;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

/**
 * Each event as {@code transaction id|index|tx} ({@code -|0|tx} for a snapshot row); a transaction's
 * begin marker as {@code id|0|-1}, its end marker as {@code id|-events|-1}.
 */
final class Untagged implements ChangeEventDeserializer<String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ChangeEvent event, Collector<String> out) {
        Object tx = event.after().get("tx");
        out.collect(event.transaction() == null ? "-|0|" + tx
                : event.transaction().id() + "|" + event.transaction().index() + "|" + tx);
    }

    @Override
    public void transactionMarker(TransactionMarker marker, Collector<String> out) {
        out.collect(marker.id() + "|" + (marker.kind() == TransactionMarker.Kind.BEGIN ? 0 : -marker.eventCount()) + "|-1");
    }

    @Override
    public TypeInformation<String> producedType() {
        return Types.STRING;
    }
}
