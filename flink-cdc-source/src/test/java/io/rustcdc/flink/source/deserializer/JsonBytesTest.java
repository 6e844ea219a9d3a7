package io.rustcdc.flink.source.deserializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.json.ShapeRendering;
import io.rustcdc.flink.source.json.WideIntegers;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.serde.RandomChangeEvents;
import io.rustcdc.flink.source.serde.TestPositionSerializer;
import io.rustcdc.flink.source.split.TestPosition;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

/** {@link ChangeEventDeserializer#jsonBytes}: the renderer's UTF-8 documents, the same as {@code json()}'s Strings. */
class JsonBytesTest {
    private static final JsonRenderer COMPACT = JsonRenderer.builder().wideIntegers(WideIntegers.NUMBER)
            .shapes(ShapeRendering.ID).build();

    /** Random events of every value kind and edge. Replay: -Drustcdc.jsonbytes.seed=N. */
    @Test
    void eachEventIsTheRenderersBytesAndDecodesToItsString() throws Exception {
        long seed = Long.getLong("rustcdc.jsonbytes.seed", System.nanoTime());
        System.out.println("JsonBytesTest seed " + seed + " (replay with -Drustcdc.jsonbytes.seed=" + seed + ")");
        RandomChangeEvents events = new RandomChangeEvents(new Random(seed), true);
        // travelled with the job, as a source's deserializer does
        List<ChangeEventDeserializer<byte[]>> deserializers = List.of(ChangeEventDeserializer.jsonBytes(),
                InstantiationUtil.clone(ChangeEventDeserializer.jsonBytes(COMPACT, true)));
        List<JsonRenderer> renderers = List.of(JsonRenderer.create(), COMPACT);
        int rendered = 0;
        for (int i = 0; i < 1000; i++) {
            ChangeEvent event = events.event();
            for (int d = 0; d < deserializers.size(); d++) {
                String context = "seed " + seed + " event " + i + " renderer " + d + ": " + event;
                JsonRenderer renderer = renderers.get(d);
                List<byte[]> out = new ArrayList<>();
                String text;
                try {
                    text = renderer.renderToString(event);
                } catch (RuntimeException e) { // a value no JSON can hold: the bytes refuse it too
                    ChangeEventDeserializer<byte[]> deserializer = deserializers.get(d);
                    assertThatThrownBy(() -> deserializer.deserialize(event, new ListCollector<>(out)))
                            .as(context).isInstanceOf(RuntimeException.class);
                    continue;
                }
                deserializers.get(d).deserialize(event, new ListCollector<>(out));
                assertThat(out).as(context).hasSize(1);
                assertThat(out.get(0)).as(context).isEqualTo(renderer.render(event));
                assertThat(new String(out.get(0), StandardCharsets.UTF_8)).as(context).isEqualTo(escapeUnpaired(text));
                rendered++;
            }
        }
        assertThat(rendered).isGreaterThan(1000);
    }

    @Test
    void markersOnlyWhenAskedForAsTheRenderersBytes() throws Exception {
        TransactionMarker begin = TransactionMarker.begin("7\ud800",
                SourceInfo.stream("postgres", new TestPosition(1), Instant.parse("2026-12-04T00:00:00.5Z")));
        TransactionMarker end = TransactionMarker.end("7", SourceInfo.stream("mariadb", new TestPosition(2), null),
                Map.of(TableId.of("shop", null, "caf\u00e9"), 3L, TableId.of("shop", "public", "orders"), 1L));
        List<byte[]> out = new ArrayList<>();
        ChangeEventDeserializer.jsonBytes().transactionMarker(begin, new ListCollector<>(out));
        ChangeEventDeserializer.jsonBytes(COMPACT).transactionMarker(end, new ListCollector<>(out));
        ChangeEventDeserializer.jsonBytes(COMPACT, false).transactionMarker(end, new ListCollector<>(out));
        assertThat(out).isEmpty();
        ChangeEventDeserializer<byte[]> markers = ChangeEventDeserializer.jsonBytes(COMPACT, true);
        markers.transactionMarker(begin, new ListCollector<>(out));
        markers.transactionMarker(end, new ListCollector<>(out));
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).isEqualTo(COMPACT.render(begin));
        assertThat(new String(out.get(0), StandardCharsets.UTF_8)).contains("\"id\":\"7\\uD800\"")
                .isEqualTo(escapeUnpaired(COMPACT.renderToString(begin)));
        assertThat(out.get(1)).isEqualTo(COMPACT.render(end));
        assertThat(new String(out.get(1), StandardCharsets.UTF_8)).isEqualTo(COMPACT.renderToString(end))
                .contains("\"op\":\"end\"", "caf\u00e9");
    }

    @Test
    void producesByteArraysAndJsonStillStrings() throws Exception {
        assertThat(ChangeEventDeserializer.jsonBytes().producedType())
                .isEqualTo(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
        assertThat(ChangeEventDeserializer.jsonBytes(COMPACT, true).producedType(new TestPositionSerializer()))
                .isEqualTo(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
        ChangeEventDeserializer<String> json = InstantiationUtil.clone(ChangeEventDeserializer.json(COMPACT, true));
        assertThat(json.producedType()).isEqualTo(Types.STRING);
        TransactionMarker begin = TransactionMarker.begin("1", SourceInfo.stream("postgres", new TestPosition(1), null));
        List<String> out = new ArrayList<>();
        json.transactionMarker(begin, new ListCollector<>(out));
        assertThat(out).containsExactly(COMPACT.renderToString(begin));
    }

    /** The String form with each unpaired surrogate as the bytes write it: {@code \}{@code uD800}. */
    private static String escapeUnpaired(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                b.append(String.format("\\u%04X", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
