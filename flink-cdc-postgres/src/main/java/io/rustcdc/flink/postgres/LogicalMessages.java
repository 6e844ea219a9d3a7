package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * The row of a captured {@code pg_logical_emit_message()}: prefix, content, how the content is
 * encoded ({@code utf8} when its bytes are valid UTF-8, {@code base64} otherwise: decide on this
 * field, never on a guess), whether it was transactional, and its LSN.
 */
final class LogicalMessages {
    static final RowType TYPE = RowType.of(List.of("prefix", "content", "content_encoding", "transactional", "lsn"),
            List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT),
                    ValueType.of(ValueKind.BOOLEAN), ValueType.of(ValueKind.TEXT)));

    private LogicalMessages() {}

    static Row row(String prefix, byte[] content, boolean transactional, Lsn lsn) {
        String text;
        String encoding;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(content))
                    .toString();
            encoding = "utf8";
        } catch (CharacterCodingException e) {
            text = Base64.getEncoder().encodeToString(content);
            encoding = "base64";
        }
        return Row.of(TYPE, prefix, text, encoding, transactional, lsn.toString());
    }
}
