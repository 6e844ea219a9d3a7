package io.rustcdc.flink.postgres;

import java.sql.SQLException;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.annotation.Internal;
import org.postgresql.PGProperty;
import org.postgresql.plugin.AuthenticationPlugin;
import org.postgresql.plugin.AuthenticationRequestType;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgJDBC's hook for the password, which sees the method the server asks for before the password
 * leaves: cleartext ({@code password} in pg_hba.conf) is refused unless the connection is TLS, and
 * MD5, which PostgreSQL deprecates, is allowed with a warning, once per user and server in this
 * process. SCRAM and the rest get the password as usual. PgJDBC makes one per login from the
 * connection's properties, hence public with a {@code Properties} constructor; not for other use.
 */
@Internal
public final class PgAuthentication implements AuthenticationPlugin {
    private static final Logger LOG = LoggerFactory.getLogger(PgAuthentication.class);
    private static final Set<String> WARNED_MD5 = ConcurrentHashMap.newKeySet();

    private final Properties properties;

    public PgAuthentication(Properties properties) {
        this.properties = properties;
    }

    @Override
    public char[] getPassword(AuthenticationRequestType type) throws PSQLException {
        String password = PGProperty.PASSWORD.getOrDefault(properties);
        String who = "user '" + PGProperty.USER.getOrDefault(properties) + "'";
        if (type == AuthenticationRequestType.CLEARTEXT_PASSWORD && !tls()) {
            throw new Refusal("asks " + who + " for the password in cleartext (pg_hba.conf method 'password') on a "
                    + "connection without TLS ('tls.mode' = disable): refused, so that the password does not cross "
                    + "the network readable. Set 'tls.mode' to require, verify-ca or verify-full, or have "
                    + "pg_hba.conf authenticate this user with scram-sha-256");
        }
        if (type == AuthenticationRequestType.MD5_PASSWORD
                && WARNED_MD5.add(PGProperty.USER.getOrDefault(properties) + "@" + server())) {
            LOG.warn("PostgreSQL at {} authenticates {} with MD5, which PostgreSQL deprecates and which a captured "
                    + "exchange can be replayed against: store the password as SCRAM (SET password_encryption = "
                    + "'scram-sha-256', then ALTER ROLE ... PASSWORD) and use scram-sha-256 in pg_hba.conf", server(), who);
        }
        return password == null ? null : password.toCharArray();
    }

    private boolean tls() {
        return !"disable".equals(PGProperty.SSL_MODE.getOrDefault(properties));
    }

    private String server() {
        return PGProperty.PG_HOST.getOrDefault(properties) + ":" + PGProperty.PG_PORT.getOrDefault(properties);
    }

    /** The refusal of a login this class made, in {@code e} or its causes; null if there is none. */
    static Refusal refusal(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Refusal) {
                return (Refusal) t;
            }
        }
        return null;
    }

    /** A login refused before the password was sent. */
    static final class Refusal extends PSQLException {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message, PSQLState.CONNECTION_REJECTED);
        }
    }
}
