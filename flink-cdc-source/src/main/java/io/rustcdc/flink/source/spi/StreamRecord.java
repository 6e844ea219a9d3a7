package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.ChangeEvent;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One step of a {@link ChangeStream}: an event and the position to resume from right after it,
 * or a position alone when the log moved without a captured change.
 */
@PublicEvolving
public final class StreamRecord<P> {
    @Nullable private final ChangeEvent event;
    private final P position;

    private StreamRecord(@Nullable ChangeEvent event, P position) {
        this.event = event;
        this.position = Objects.requireNonNull(position, "position");
    }

    public static <P> StreamRecord<P> of(ChangeEvent event, P position) {
        return new StreamRecord<>(Objects.requireNonNull(event, "event"), position);
    }

    public static <P> StreamRecord<P> progress(P position) {
        return new StreamRecord<>(null, position);
    }

    /** The change, or null for a record that only moves the position. */
    @Nullable
    public ChangeEvent event() {
        return event;
    }

    /** Where to resume so that this record is not delivered again. */
    public P position() {
        return position;
    }

    @Override
    public String toString() {
        return (event == null ? "progress" : event.toString()) + " -> " + position;
    }
}
