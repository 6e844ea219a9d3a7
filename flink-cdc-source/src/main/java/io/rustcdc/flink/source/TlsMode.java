package io.rustcdc.flink.source;

import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;
import org.apache.flink.configuration.description.TextElement;

/**
 * TLS to the database server (option {@code tls.mode}), the same four modes for every connector;
 * each connector maps them to its driver's settings.
 */
@PublicEvolving
public enum TlsMode implements DescribedEnum {
    DISABLE("Plaintext. Only when configured explicitly."),
    REQUIRE("Encrypted, server certificate not verified. The default."),
    VERIFY_CA("Encrypted, server certificate signed by tls.root-cert."),
    VERIFY_FULL("Encrypted, certificate verified and matching the host name.");

    private final String description;

    TlsMode(String description) {
        this.description = description;
    }

    /** Whether the server's certificate is checked against {@code tls.root-cert}. */
    public boolean verifiesCertificate() {
        return this == VERIFY_CA || this == VERIFY_FULL;
    }

    /** Whether the connection is encrypted. */
    public boolean encrypts() {
        return this != DISABLE;
    }

    @Override
    public InlineElement getDescription() {
        return TextElement.text(description);
    }

    /** The option's value: {@code disable}, {@code require}, {@code verify-ca} or {@code verify-full}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
