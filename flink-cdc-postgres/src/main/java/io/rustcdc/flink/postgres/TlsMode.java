package io.rustcdc.flink.postgres;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;
import org.apache.flink.configuration.description.TextElement;

/** TLS to the PostgreSQL server; PgJDBC's {@code sslmode} of the same name. */
@PublicEvolving
public enum TlsMode implements DescribedEnum {
    DISABLE("disable", "Plaintext. Only when configured explicitly."),
    REQUIRE("require", "Encrypted, server certificate not verified. The default."),
    VERIFY_CA("verify-ca", "Encrypted, server certificate signed by tls.root-cert."),
    VERIFY_FULL("verify-full", "Encrypted, certificate verified and matching the host name.");

    private final String sslMode;
    private final String description;

    TlsMode(String sslMode, String description) {
        this.sslMode = sslMode;
        this.description = description;
    }

    /** PgJDBC's {@code sslmode} value. */
    public String sslMode() {
        return sslMode;
    }

    @Override
    public InlineElement getDescription() {
        return TextElement.text(description);
    }

    @Override
    public String toString() {
        return sslMode;
    }
}
