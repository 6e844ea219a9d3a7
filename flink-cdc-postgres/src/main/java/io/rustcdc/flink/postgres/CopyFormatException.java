package io.rustcdc.flink.postgres;

/** What {@code COPY} sent is not the format its parser reads (columns, lengths, header, end); names no value. */
final class CopyFormatException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    CopyFormatException(String message) {
        super(message);
    }
}
