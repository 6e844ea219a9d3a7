package io.rustcdc.flink.source;

import io.rustcdc.flink.source.control.ControlSettings;
import javax.annotation.Nullable;

import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.deserializer.SchemaChangeGate;
import io.rustcdc.flink.source.enumerator.CdcEnumerator;
import io.rustcdc.flink.source.enumerator.EnumeratorState;
import io.rustcdc.flink.source.enumerator.EnumeratorStateSerializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.reader.CdcSourceReader;
import io.rustcdc.flink.source.retry.RetryingConnector;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.CdcSplitSerializer;
import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A Flink source of database changes: a snapshot of the captured tables, read in key-range chunks
 * in parallel, then one stream of every change after it, with an exact handoff between the two.
 * Positions are confirmed to the database only after a Flink checkpoint holds them.
 *
 * <pre>{@code
 * PostgresSourceConfig postgres = PostgresSourceConfig.builder()
 *         .hostname("db.internal").database("shop").username("cdc")
 *         .password(SecretProvider.environment("PGPASSWORD"))
 *         .slotName("shop_cdc").publicationName("shop_cdc")
 *         .build();
 * CdcSource<String, ?, ?> source = CdcSource.builder()
 *         .connector(PostgresConnector.create(postgres))
 *         .includeTables("public.orders", "public.customers")
 *         .startupMode(StartupMode.initial())
 *         .deserializer(ChangeEventDeserializer.json())
 *         .build();
 * env.enableCheckpointing(10_000);
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "shop changes").print();
 * }</pre>
 *
 * @param <T> what the source emits, as made by its {@link ChangeEventDeserializer}
 * @param <P> the connector's position type
 * @param <M> the connector's chunk mark type
 */
@PublicEvolving
public final class CdcSource<T, P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements Source<T, CdcSplit, EnumeratorState<P, M>>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;
    private final ChangeEventDeserializer<T> deserializer;
    @Nullable private final ControlSettings control;

    CdcSource(CdcConnector<P, M> connector, SourceSettings settings, ChangeEventDeserializer<T> deserializer,
            @Nullable ControlSettings control) {
        this.connector = connector;
        this.settings = settings;
        this.deserializer = deserializer;
        this.control = control;
    }

    /** The way in: choose the connector first. */
    public static ConnectorStep builder() {
        return new ConnectorStep();
    }

    /** A builder for {@code connector}, emitting {@link ChangeEvent}s until another deserializer is set. */
    public static <P extends SourcePosition & Comparable<P>, M extends Serializable> CdcSourceBuilder<ChangeEvent, P, M>
            builder(CdcConnector<P, M> connector) {
        return new CdcSourceBuilder<>(connector, ChangeEventDeserializer.events());
    }

    /** The first step of {@link #builder()}. */
    @PublicEvolving
    public static final class ConnectorStep {
        private ConnectorStep() {}

        public <P extends SourcePosition & Comparable<P>, M extends Serializable> CdcSourceBuilder<ChangeEvent, P, M>
                connector(CdcConnector<P, M> connector) {
            return CdcSource.builder(connector);
        }
    }

    public CdcConnector<P, M> connector() {
        return connector;
    }

    public SourceSettings settings() {
        return settings;
    }

    /** The snapshot control's directory and poll interval; null when {@code scan.control.path} is not set. */
    @Nullable
    public ControlSettings control() {
        return control;
    }

    @Override
    public Boundedness getBoundedness() {
        return settings.startupMode().streams() ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<T, CdcSplit> createReader(SourceReaderContext context) {
        return new CdcSourceReader<>(context, RetryingConnector.wrap(connector, context.metricGroup()), settings,
                SchemaChangeGate.wrap(deserializer, settings.schemaChanges(), context.metricGroup()));
    }

    @Override
    public SplitEnumerator<CdcSplit, EnumeratorState<P, M>> createEnumerator(SplitEnumeratorContext<CdcSplit> context) {
        return new CdcEnumerator<>(context, RetryingConnector.wrap(connector, context.metricGroup()), settings,
                EnumeratorState.empty(), control);
    }

    @Override
    public SplitEnumerator<CdcSplit, EnumeratorState<P, M>> restoreEnumerator(SplitEnumeratorContext<CdcSplit> context,
            EnumeratorState<P, M> state) {
        return new CdcEnumerator<>(context, RetryingConnector.wrap(connector, context.metricGroup()), settings, state,
                control);
    }

    @Override
    public SimpleVersionedSerializer<CdcSplit> getSplitSerializer() {
        return new CdcSplitSerializer<>(connector.positionSerializer(), connector.markSerializer(), connector.keyOrder());
    }

    @Override
    public SimpleVersionedSerializer<EnumeratorState<P, M>> getEnumeratorCheckpointSerializer() {
        return new EnumeratorStateSerializer<>(connector.positionSerializer(), connector.markSerializer(),
                connector.keyOrder());
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return deserializer.producedType(connector.positionSerializer());
    }

    @Override
    public String toString() {
        return "CdcSource{" + connector + ", " + settings + "}";
    }
}
