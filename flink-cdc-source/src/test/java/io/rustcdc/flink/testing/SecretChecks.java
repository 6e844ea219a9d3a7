package io.rustcdc.flink.testing;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.flink.util.InstantiationUtil;

/**
 * What the secrets tests of every connector share: passwords no one could guess, and the places a
 * password must never appear (an object's Java-serialized bytes, an exception chain's messages).
 */
public final class SecretChecks {
    private static final SecureRandom RANDOM = new SecureRandom();

    private SecretChecks() {}

    /** A fresh password of letters and digits, valid on every server: {@code pw} and 24 hex digits. */
    public static String randomPassword() {
        return "pw" + randomHex(12);
    }

    /** {@code bytes} random bytes as lower-case hex digits: for a name no other run uses. */
    public static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** {@code o} Java-serialized (as Flink ships a source or a job graph), as text to search for a secret. */
    public static String serializedText(Object o) throws Exception {
        return new String(InstantiationUtil.serializeObject(o), StandardCharsets.ISO_8859_1);
    }

    /** The message of {@code e} and of each of its causes, outermost first ("null" for none). */
    public static List<String> causeMessages(Throwable e) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }
}
