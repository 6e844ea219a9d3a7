package io.rustcdc.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretProviderTest {

    @Test
    void aFileIsReadAtEachResolveSoARotatedPasswordIsUsedNextTime(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("password");
        SecretProvider provider = SecretProvider.file(file);
        assertThatThrownBy(provider::resolve).isInstanceOf(CdcException.class)
                .hasMessageContaining("Cannot read the password file " + file).hasMessageContaining("'password.file'")
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
        Files.writeString(file, "old-secret\n");
        assertThat(provider.resolve().reveal()).isEqualTo("old-secret");
        Files.writeString(file, "new-secret\r\n");
        assertThat(provider.resolve().reveal()).isEqualTo("new-secret");
        Files.writeString(file, "  inner spaces kept \n\n");
        assertThat(provider.resolve().reveal()).isEqualTo("  inner spaces kept \n");
    }

    @Test
    void anEnvironmentVariableIsReadWhenResolvedAndAMissingOneIsNamed() {
        String path = System.getenv("PATH");
        assertThat(SecretProvider.environment("PATH").resolve().reveal()).isEqualTo(path);
        assertThatThrownBy(() -> SecretProvider.environment("RUSTCDC_NO_SUCH_VARIABLE").resolve())
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("The environment variable RUSTCDC_NO_SUCH_VARIABLE")
                .hasMessageContaining("set it on the JobManager and on every TaskManager");
        assertThatThrownBy(() -> SecretProvider.environment(" ")).hasMessageContaining("'password.env'");
    }

    @Test
    void onlyTheReferenceIsSerializedAndShown(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("password");
        Files.writeString(file, "file-secret-4711");
        SecretProvider fromFile = SecretProvider.file(file);
        fromFile.resolve();
        byte[] bytes = InstantiationUtil.serializeObject(fromFile);
        assertThat(new String(bytes, StandardCharsets.ISO_8859_1)).doesNotContain("file-secret-4711");
        SecretProvider copy = InstantiationUtil.deserializeObject(bytes, getClass().getClassLoader());
        assertThat(copy).isEqualTo(fromFile);
        assertThat(copy.resolve().reveal()).isEqualTo("file-secret-4711");
        assertThat(fromFile.toString()).isEqualTo("file:" + file);
        assertThat(SecretProvider.environment("DB_PW").toString()).isEqualTo("env:DB_PW");
        assertThat(Secret.of("literal-77").toString()).isEqualTo("******");
    }

    @Test
    void aProviderOfOnesOwnIsAskedAtEachResolve() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        SecretProvider tokens = (SecretProvider & java.io.Serializable) () -> Secret.of("token-" + calls.incrementAndGet());
        assertThat(tokens.resolve().reveal()).isEqualTo("token-1");
        assertThat(tokens.resolve().reveal()).isEqualTo("token-2");
        Secret literal = Secret.of("x");
        assertThat(literal.resolve()).isSameAs(literal);
    }

    @Test
    void redactMasksTheSecretInTextAndInAnExceptionChain() throws IOException {
        Secret secret = Secret.of("pw-1234");
        assertThat(secret.redact("login pw-1234 failed, pw-1234")).isEqualTo("login ****** failed, ******");
        assertThat(secret.redact((String) null)).isNull();
        assertThat(Secret.of("").redact("text")).isEqualTo("text");

        SQLException clean = new SQLException("access denied");
        assertThat(secret.redact(clean)).isSameAs(clean);

        SQLException leaky = new SQLException("outer", new IllegalStateException("inner pw-1234"));
        Throwable redacted = secret.redact(leaky);
        StringWriter trace = new StringWriter();
        redacted.printStackTrace(new PrintWriter(trace));
        assertThat(trace.toString()).doesNotContain("pw-1234").contains("java.sql.SQLException: outer",
                "java.lang.IllegalStateException: inner ******");
        assertThat(redacted.getStackTrace()).isEqualTo(leaky.getStackTrace());
        try (ObjectOutputStream out = new ObjectOutputStream(new ByteArrayOutputStream())) {
            out.writeObject(redacted);
        }
    }
}
