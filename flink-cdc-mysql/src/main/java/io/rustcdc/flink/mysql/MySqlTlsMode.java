package io.rustcdc.flink.mysql;

import org.apache.flink.annotation.PublicEvolving;

/** TLS to the MySQL or MariaDB server, named as for PostgreSQL (option {@code tls.mode}). */
@PublicEvolving
public enum MySqlTlsMode {
    /** Plaintext. Only when configured explicitly. */
    DISABLE("disable"),
    /** Encrypted, server certificate not verified. The default. */
    REQUIRE("trust"),
    /** Encrypted, server certificate signed by {@code tls.root-cert}. */
    VERIFY_CA("verify-ca"),
    /** Encrypted, certificate verified and matching the host name. */
    VERIFY_FULL("verify-full");

    private final String sslMode;

    MySqlTlsMode(String sslMode) {
        this.sslMode = sslMode;
    }

    /** The option's value: {@code disable}, {@code require}, {@code verify-ca}, {@code verify-full}. */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** MariaDB Connector/J's {@code sslMode} value. */
    String sslMode() {
        return sslMode;
    }
}
