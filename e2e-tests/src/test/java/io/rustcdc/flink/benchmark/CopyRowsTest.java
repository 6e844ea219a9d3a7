package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's row counts of a {@code COPY} stream ({@link CopyRows}), on random streams handed over in random
 * pieces: every row counted once, whatever the pieces' boundaries and the values' bytes (newlines and the
 * framing's own bytes among them in binary values). The seed is printed so that a failure can be replayed.
 */
class CopyRowsTest {
    private static final byte[] SIGNATURE = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);

    @Test
    void binaryRowsAreCountedByTheirFramingInAnyPieces() throws IOException {
        long seed = System.nanoTime();
        System.out.println("CopyRowsTest seed: " + seed);
        Random random = new Random(seed);
        for (int stream = 0; stream < 300; stream++) {
            int rows = random.nextInt(stream < 10 ? 3 : 1200);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.write(SIGNATURE);
            out.writeInt(0);
            int extension = random.nextInt(3) == 0 ? random.nextInt(9) : 0;
            out.writeInt(extension);
            out.write(randomBytes(random, extension));
            for (int r = 0; r < rows; r++) {
                int fields = random.nextInt(6); // a row of no fields too
                out.writeShort(fields);
                for (int f = 0; f < fields; f++) {
                    if (random.nextInt(5) == 0) {
                        out.writeInt(-1); // NULL
                    } else {
                        byte[] value = randomBytes(random, random.nextInt(50) == 0 ? random.nextInt(70_000) : random.nextInt(20));
                        out.writeInt(value.length);
                        out.write(value);
                    }
                }
            }
            out.writeShort(-1);
            assertThat(count(true, bytes.toByteArray(), random))
                    .as("seed %d, stream %d", seed, stream).isEqualTo(rows);
        }
    }

    @Test
    void textRowsAreCountedByTheirLineEndsInAnyPieces() {
        long seed = System.nanoTime();
        System.out.println("CopyRowsTest seed: " + seed);
        Random random = new Random(seed);
        for (int stream = 0; stream < 300; stream++) {
            int rows = random.nextInt(1200);
            StringBuilder text = new StringBuilder();
            for (int r = 0; r < rows; r++) {
                // a value's newline comes escaped, as backslash and n
                text.append(r).append('\t').append(random.nextBoolean() ? "a\\nb" : "\\N").append('\t')
                        .append("x".repeat(random.nextInt(300))).append('\n');
            }
            assertThat(count(false, text.toString().getBytes(StandardCharsets.UTF_8), random))
                    .as("seed %d, stream %d", seed, stream).isEqualTo(rows);
        }
    }

    @Test
    void bytesAfterTheBinaryTrailerAreRefused() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.write(SIGNATURE);
        out.writeInt(0);
        out.writeInt(0);
        out.writeShort(-1);
        out.writeShort(1);
        assertThatThrownBy(() -> new CopyRows.Binary(new AtomicLong()).write(bytes.toByteArray()))
                .isInstanceOf(IllegalStateException.class);
    }

    /** The rows counted of {@code stream} handed over in pieces of random sizes, single bytes among them. */
    private static long count(boolean binary, byte[] stream, Random random) {
        AtomicLong read = new AtomicLong();
        CopyRows rows = binary ? new CopyRows.Binary(read) : new CopyRows.Text(read);
        int at = 0;
        while (at < stream.length) {
            int piece = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(Math.min(stream.length - at, 5_000));
            piece = Math.min(piece, stream.length - at);
            if (piece == 1 && random.nextBoolean()) {
                rows.write(stream[at]);
            } else {
                rows.write(stream, at, piece);
            }
            at += piece;
        }
        rows.close();
        return read.get();
    }

    private static byte[] randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
