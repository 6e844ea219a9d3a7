package io.rustcdc.flink.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;

/**
 * A self-signed server certificate for {@code localhost} and {@code 127.0.0.1}, made with the
 * JDK's keytool and written as PEM files, so test servers can offer TLS without any other tool.
 */
public final class TestCertificates {
    /** The PEM files of one certificate; the certificate is also its own CA. */
    public static final class Pem {
        public final Path certificate;
        public final Path privateKey;

        Pem(Path certificate, Path privateKey) {
            this.certificate = certificate;
            this.privateKey = privateKey;
        }
    }

    private TestCertificates() {}

    public static Pem selfSigned(Path dir) {
        Path store = dir.resolve("server.p12");
        String password = "changeit";
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        LocalProcesses.run(new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "server",
                "-keyalg", "RSA", "-keysize", "2048", "-validity", "30", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", password, "-keypass", password)), 60);
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password.toCharArray());
            Certificate cert = ks.getCertificate("server");
            PrivateKey key = (PrivateKey) ks.getKey("server", password.toCharArray());
            Path certFile = dir.resolve("server.crt");
            Path keyFile = dir.resolve("server.key");
            Files.writeString(certFile, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
            Files.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
            Files.delete(store);
            return new Pem(certFile, keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
