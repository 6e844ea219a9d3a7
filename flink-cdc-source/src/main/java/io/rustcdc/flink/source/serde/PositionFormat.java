package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.SourcePosition;
import java.io.IOException;
import java.io.Serializable;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * How a {@link ChangeEventSerializer} writes an event's position: with the connector's own versioned
 * position serializer, named by its class (which needs a public no-argument constructor, so that a
 * serializer restored from a savepoint can make one), or not at all for a type that knows no
 * connector, which then refuses events that carry a position. Serializable; thread-safe as the
 * connector's position serializer is.
 */
@Internal
public final class PositionFormat implements Serializable {
    private static final long serialVersionUID = 1L;

    @Nullable private final Class<?> serializerClass;
    @Nullable private transient SimpleVersionedSerializer<SourcePosition> serializer;

    private PositionFormat(@Nullable Class<?> serializerClass, @Nullable SimpleVersionedSerializer<?> serializer) {
        this.serializerClass = serializerClass;
        this.serializer = cast(serializer);
    }

    /** Positions written by {@code serializer}. */
    public static PositionFormat of(SimpleVersionedSerializer<? extends SourcePosition> serializer) {
        Class<?> type = serializer.getClass();
        instantiate(type); // fails now, when the job is built, rather than at a restore
        return new PositionFormat(type, serializer);
    }

    /** No connector's positions: events with a position fail to serialize. */
    public static PositionFormat none() {
        return new PositionFormat(null, null);
    }

    /** The format a snapshot named: the position serializer of class {@code className}, or none when null. */
    static PositionFormat named(@Nullable String className, ClassLoader loader) throws IOException {
        if (className == null) {
            return none();
        }
        try {
            Class<?> type = Class.forName(className, false, loader);
            return new PositionFormat(type, instantiate(type));
        } catch (ClassNotFoundException | IllegalArgumentException e) {
            throw new IOException("Cannot restore the position serializer " + className
                    + " of a ChangeEvent serializer: is the connector's jar on the job's class path?", e);
        }
    }

    /** The position serializer's class name, or null. */
    @Nullable
    String className() {
        return serializerClass == null ? null : serializerClass.getName();
    }

    void write(DataOutputView out, @Nullable SourcePosition position) throws IOException {
        out.writeBoolean(position != null);
        if (position == null) {
            return;
        }
        try {
            StateIO.writeVersioned(out, serializer(position), position);
        } catch (ClassCastException e) {
            throw new IOException("A ChangeEvent's position of " + position.getClass().getName()
                    + " is not of the connector whose position serializer this type uses, " + className(), e);
        }
    }

    @Nullable
    SourcePosition read(DataInputView in) throws IOException {
        return in.readBoolean() ? StateIO.readVersioned(in, serializer(null)) : null;
    }

    private SimpleVersionedSerializer<SourcePosition> serializer(@Nullable SourcePosition position) throws IOException {
        if (serializerClass == null) {
            throw new IOException("This ChangeEvent type knows no connector's position format, but an event"
                    + (position == null ? "" : " at " + position) + " has a position: use the source's type,"
                    + " CdcSource.getProducedType() (e.g. .returns(source.getProducedType()) after a map)");
        }
        if (serializer == null) {
            serializer = cast(instantiate(serializerClass));
        }
        return serializer;
    }

    private static SimpleVersionedSerializer<?> instantiate(Class<?> type) {
        try {
            return (SimpleVersionedSerializer<?>) type.getConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("The position serializer " + type.getName() + " must be a public"
                    + " SimpleVersionedSerializer with a public no-argument constructor: a restored ChangeEvent"
                    + " serializer makes it by its class name", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static SimpleVersionedSerializer<SourcePosition> cast(@Nullable SimpleVersionedSerializer<?> serializer) {
        return (SimpleVersionedSerializer<SourcePosition>) serializer;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PositionFormat && Objects.equals(serializerClass, ((PositionFormat) o).serializerClass);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(serializerClass);
    }

    @Override
    public String toString() {
        return serializerClass == null ? "no positions" : "positions by " + serializerClass.getName();
    }
}
