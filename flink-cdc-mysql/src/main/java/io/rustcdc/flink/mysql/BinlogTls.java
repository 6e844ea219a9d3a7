package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.network.DefaultSSLSocketFactory;
import com.github.shyiko.mysql.binlog.network.SSLMode;
import io.rustcdc.flink.source.CdcException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** The binlog connection's TLS, as the JDBC connections': {@code tls.mode} and {@code tls.root-cert}. */
final class BinlogTls {
    private BinlogTls() {}

    static void configure(BinaryLogClient client, MySqlSourceConfig config) {
        switch (config.tlsMode()) {
            case DISABLE:
                client.setSSLMode(SSLMode.DISABLED);
                return;
            case REQUIRE:
                client.setSSLMode(SSLMode.REQUIRED);
                return;
            case VERIFY_CA:
                client.setSSLMode(SSLMode.VERIFY_CA);
                break;
            default:
                client.setSSLMode(SSLMode.VERIFY_IDENTITY);
        }
        if (config.tlsRootCert() != null) {
            KeyStore trusted = trustStore(config);
            client.setSslSocketFactory(new DefaultSSLSocketFactory() {
                @Override
                protected void initSSLContext(SSLContext context) throws GeneralSecurityException {
                    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                    tmf.init(trusted);
                    context.init(null, tmf.getTrustManagers(), null);
                }
            });
        }
    }

    private static KeyStore trustStore(MySqlSourceConfig config) {
        try (InputStream in = Files.newInputStream(Path.of(config.tlsRootCert()))) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("root-" + i++, c);
            }
            return store;
        } catch (Exception e) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Cannot read '" + MySqlSourceConfig.TLS_ROOT_CERT
                    + "' " + config.tlsRootCert() + " as PEM certificates: " + e.getMessage());
        }
    }
}
