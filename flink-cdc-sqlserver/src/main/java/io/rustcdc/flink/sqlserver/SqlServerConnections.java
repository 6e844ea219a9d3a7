package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.UUID;
import javax.annotation.Nullable;

/**
 * Opens mssql-jdbc connections to the configured database with its TLS and credentials, the
 * password resolved anew for each connection. A failure names the server, database, user and the
 * option to check, never the password.
 */
final class SqlServerConnections {
    /** Login failed for user (a wrong password or user, a disabled login, no access to the database). */
    private static final int LOGIN_FAILED = 18456;
    /** Cannot open database requested by the login. */
    private static final int CANNOT_OPEN_DATABASE = 4060;

    private SqlServerConnections() {}

    static Connection connect(SqlServerSourceConfig config) {
        Secret password = config.connection().password().resolve();
        Properties props = new Properties();
        props.setProperty("user", config.connection().username());
        props.setProperty("password", password.reveal());
        props.setProperty("databaseName", config.database());
        props.setProperty("loginTimeout", String.valueOf(Math.max(1, config.connection().connectTimeout().toSeconds())));
        // a read that gets nothing for read.timeout: a dead peer (the driver's socketTimeout, in milliseconds)
        props.setProperty("socketTimeout", String.valueOf(config.connection().readTimeout().toMillis()));
        props.setProperty("applicationName", "rustcdc");
        props.setProperty("sendTimeAsDatetime", "false");
        tls(config, props);
        String url = "jdbc:sqlserver://" + config.connection().hostname() + ":" + config.connection().port();
        try {
            return DriverManager.getConnection(url, props);
        } catch (SQLException e) {
            boolean refused = e.getErrorCode() == LOGIN_FAILED || e.getErrorCode() == CANNOT_OPEN_DATABASE;
            throw new CdcException(refused ? CdcException.Kind.PREREQUISITE : CdcException.Kind.CONNECTION,
                    "Could not connect to SQL Server at " + config.connection().hostname() + ":"
                            + config.connection().port() + ", database '"
                            + config.database() + "', as '" + config.connection().username() + "' (tls.mode "
                            + config.connection().tlsMode() + "): " + password.redact(String.valueOf(e.getMessage()))
                            + (refused ? ". Check user, password, and that the login may open the database."
                                    : ". Check host, port, 'tls.mode' and 'tls.root-cert'."),
                    password.redact(e));
        }
    }

    /**
     * mssql-jdbc's {@code encrypt} and trust settings of each mode: {@code require} encrypts and
     * trusts any certificate; {@code verify-full} checks it against {@code tls.root-cert} and the
     * host name. {@code verify-ca} (a CA without the host name) has no mssql-jdbc setting and is refused.
     */
    private static void tls(SqlServerSourceConfig config, Properties props) {
        TlsMode mode = config.connection().tlsMode();
        switch (mode) {
            case DISABLE:
                props.setProperty("encrypt", "false");
                return;
            case REQUIRE:
                props.setProperty("encrypt", "true");
                props.setProperty("trustServerCertificate", "true");
                return;
            case VERIFY_FULL:
                props.setProperty("encrypt", "true");
                props.setProperty("trustServerCertificate", "false");
                String store = trustStore(config.connection().tlsRootCert());
                props.setProperty("trustStore", store);
                props.setProperty("trustStorePassword", TRUST_STORE_PASSWORD);
                props.setProperty("trustStoreType", "PKCS12");
                return;
            default:
                throw new CdcException(CdcException.Kind.CONFIGURATION, "'tls.mode' = " + mode + " is not supported "
                        + "by the SQL Server connector: mssql-jdbc verifies a certificate together with the host name. "
                        + "Use 'verify-full' with 'tls.root-cert', or 'require'.");
        }
    }

    /** Not a secret: the store holds only the public CA certificate. */
    private static final String TRUST_STORE_PASSWORD = "rustcdc-ca";

    /** The PEM certificates of {@code pemPath} in a PKCS12 trust store file, which mssql-jdbc reads. */
    private static String trustStore(@Nullable String pemPath) {
        try (InputStream in = Files.newInputStream(Paths.get(pemPath))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca" + i++, c);
            }
            Path file = Files.createTempFile("rustcdc-sqlserver-ca-" + UUID.randomUUID(), ".p12");
            file.toFile().deleteOnExit();
            try (OutputStream out = Files.newOutputStream(file)) {
                store.store(out, TRUST_STORE_PASSWORD.toCharArray());
            }
            return file.toString();
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Cannot read the CA certificate of 'tls.root-cert' ("
                    + pemPath + "): " + e.getMessage(), e);
        }
    }

    /** Closes {@code c}; a failure to close is of no use to anyone (the connection is gone either way). */
    static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // nothing left to do with it
        }
    }

    /** A failure on an open connection, naming the server, database and user, never the password. */
    static CdcException failure(SqlServerSourceConfig config, SQLException e) {
        Secret password = config.connection().literalPassword();
        String message = String.valueOf(e.getMessage());
        return new CdcException(CdcException.Kind.CONNECTION, "SQL Server at " + config.connection().hostname() + ":"
                + config.connection().port()
                + ", database '" + config.database() + "', as '" + config.connection().username() + "' failed: "
                + (password == null ? message : password.redact(message)) + " (error " + e.getErrorCode() + ")",
                password == null ? e : password.redact(e));
    }
}
