package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TransactionInfo;
import java.io.Serializable;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.annotation.VisibleForTesting;

/**
 * Renders a row event in the envelope of a Debezium change event's value as Debezium's JSON
 * converter writes it without schemas ({@code schemas.enable=false}), for consumers that already
 * parse that envelope (Flink's {@code debezium-json} format among them):
 *
 * <pre>{@code
 * {"before":{...},"after":{...},
 *  "source":{"version":"rustcdc","connector":"postgres","name":"shop","ts_ms":1711841400000,
 *            "ts_us":1711841400000000,"ts_ns":1711841400000000000,"snapshot":"false","db":"shop",
 *            "schema":"public","table":"orders","position":"0/16B3748"},
 *  "op":"u","ts_ms":1711841400123,
 *  "transaction":{"id":"768","total_order":2,"data_collection_order":2}}
 * }</pre>
 *
 * <p>{@code op} is {@code r}, {@code c}, {@code u}, {@code d} or {@code t} (truncate), and {@code m}
 * for a logical message, whose row is in {@code message}. Values are this project's exact native
 * JSON values (decimals as strings with their scale, temporal values as ISO text; see
 * docs/native-json.md), not Debezium's encodings. A column the source did not send (an unchanged
 * TOAST value) holds Debezium's placeholder {@code __debezium_unavailable_value}, never null. Schema
 * changes have no place in this envelope, as in Debezium's data topics: {@link #render} returns
 * null for them. Thread-safe.
 */
@PublicEvolving
public final class DebeziumJsonRenderer implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What Debezium writes, by default, for a value its source did not send. */
    public static final String UNAVAILABLE = "__debezium_unavailable_value";

    private final JsonValues values = new JsonValues(WideIntegers.STRING);
    private final Clock clock;

    private DebeziumJsonRenderer(Clock clock) {
        this.clock = clock;
    }

    /** A renderer whose top-level {@code ts_ms} is the time of rendering, as Debezium's is. */
    public static DebeziumJsonRenderer create() {
        return new DebeziumJsonRenderer(Clock.systemUTC());
    }

    @VisibleForTesting
    static DebeziumJsonRenderer withClock(Clock clock) {
        return new DebeziumJsonRenderer(Objects.requireNonNull(clock, "clock"));
    }

    /** The event's envelope, or null for an event the envelope has no form for (schema changes). */
    @Nullable
    public String render(ChangeEvent event) {
        String op = op(event.op());
        if (op == null) {
            return null;
        }
        JsonBuffer out = JsonRenderer.BUFFER.get().reset(false); // reused: grows once, not per event
        write(out, event, op);
        return out.toString();
    }

    @Nullable
    private static String op(Op op) {
        switch (op) {
            case READ:
                return "r";
            case INSERT:
                return "c";
            case UPDATE:
                return "u";
            case DELETE:
                return "d";
            case TRUNCATE:
                return "t";
            case MESSAGE:
                return "m";
            default:
                return null;
        }
    }

    private void write(JsonBuffer out, ChangeEvent e, String op) {
        out.ascii('{');
        if (e.op() == Op.MESSAGE) {
            writeRow(out, "message", e.after());
        } else {
            writeRow(out, "before", e.op() == Op.TRUNCATE ? null : e.before());
            out.comma();
            writeRow(out, "after", e.op() == Op.TRUNCATE ? null : e.after());
        }
        out.comma();
        writeSource(out, e);
        out.comma().name("op").string(op);
        out.comma().name("ts_ms").number(clock.millis());
        TransactionInfo t = e.transaction();
        out.comma().name("transaction");
        if (t == null) {
            out.nullValue();
        } else {
            out.ascii('{').name("id").string(t.id());
            if (t.index() != TransactionInfo.UNKNOWN) {
                out.comma().name("total_order").number(t.index());
                // Debezium counts per table as well; events carry only the transaction-wide index
                out.comma().name("data_collection_order").number(t.index());
            }
            out.ascii('}');
        }
        out.ascii('}');
    }

    private void writeRow(JsonBuffer out, String field, @Nullable Row row) {
        out.name(field);
        if (row == null) {
            out.nullValue();
        } else {
            values.writeRow(out, row, UNAVAILABLE);
        }
    }

    /** Units of {@code 1 / perSecond} s since the epoch, rounded down, exact for every instant. */
    static BigInteger since(Instant t, long perSecond) {
        return BigInteger.valueOf(t.getEpochSecond()).multiply(BigInteger.valueOf(perSecond))
                .add(BigInteger.valueOf(t.getNano() / (1_000_000_000L / perSecond)));
    }

    private static void writeSource(JsonBuffer out, ChangeEvent e) {
        SourceInfo s = e.source();
        out.name("source").ascii('{').name("version").string("rustcdc");
        out.comma().name("connector").string(s.connector());
        out.comma().name("name").string(e.table().database());
        Instant commit = s.commitTime() == null ? Instant.EPOCH : s.commitTime();
        out.comma().name("ts_ms").rawAscii(since(commit, 1_000).toString());
        out.comma().name("ts_us").rawAscii(since(commit, 1_000_000).toString());
        out.comma().name("ts_ns").rawAscii(since(commit, 1_000_000_000).toString());
        out.comma().name("snapshot").string(Boolean.toString(s.snapshot()));
        out.comma().name("db").string(e.table().database());
        out.comma().name("schema").string(e.table().schema());
        out.comma().name("table").string(e.table().table());
        if (s.position() != null) {
            s.position().writeTo(out.comma().name("position").ascii('"'));
            out.ascii('"');
        }
        out.ascii('}');
    }
}
