package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The client's input, with strings read one char per byte (ISO-8859-1), whatever the JVM's default character set. */
final class BytesAsChars extends ByteArrayInputStream {
    BytesAsChars(InputStream in) {
        super(in);
    }

    @Override
    public String readString(int length) throws IOException {
        return new String(read(length), StandardCharsets.ISO_8859_1);
    }

    @Override
    public String readZeroTerminatedString() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int b = read(); b != 0; b = read()) {
            if (b < 0) {
                throw new EOFException();
            }
            bytes.write(b);
        }
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }
}
