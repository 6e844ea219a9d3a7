package io.rustcdc.flink.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * Names the collation of a column for the key order ({@link PostgresKeyOrder}): {@link
 * PostgresKeyOrder#CODE_POINTS} for text, varchar and name, and {@link
 * PostgresKeyOrder#CODE_POINTS_BLANK_PADDED} for character(n), when the database's encoding is UTF8 and
 * the collation compares bytes: libc's {@code C} and {@code POSIX} (so {@code ucs_basic} before
 * PostgreSQL 17) and the builtin provider's {@code C} and {@code C.UTF-8} (PostgreSQL 17: {@code
 * ucs_basic}, {@code pg_c_utf8}), which sort by code point, as UTF-8's bytes do. Any other collation is
 * named as the catalogue shows it ({@code "en_US.utf8" (libc)}), which the key order does not order.
 * Not thread-safe.
 */
final class PgCollations {
    /** pg_collation's oid of the database's default collation. */
    private static final long DEFAULT_COLLATION = 100;
    private static final int NAME = 19;
    private static final int TEXT = 25;
    private static final int BPCHAR = 1042;
    private static final int VARCHAR = 1043;

    private final Connection connection;
    private final int serverVersion;
    private final Map<Long, Collation> collations = new HashMap<>();
    @Nullable private Boolean utf8;

    PgCollations(Connection connection, int serverVersion) {
        this.connection = connection;
        this.serverVersion = serverVersion;
    }

    /**
     * The name the key order reads for a column of type {@code typeOid} with collation {@code
     * collationOid} ({@code pg_attribute.attcollation}); null for a type without collation (0).
     */
    @Nullable
    String name(long typeOid, long collationOid, String declaredType) throws SQLException {
        if (collationOid == 0) {
            return null;
        }
        Collation c = collations.get(collationOid);
        if (c == null) {
            c = collationOid == DEFAULT_COLLATION ? databaseDefault() : read(collationOid);
            collations.put(collationOid, c);
        }
        boolean codePoints = c.comparesBytes() && isUtf8();
        if (!codePoints) {
            return c.label(isUtf8());
        }
        if (typeOid == TEXT || typeOid == VARCHAR || typeOid == NAME) {
            return PostgresKeyOrder.CODE_POINTS;
        }
        if (typeOid == BPCHAR) {
            return PostgresKeyOrder.CODE_POINTS_BLANK_PADDED;
        }
        return c.label(true) + " on type " + declaredType; // citext, domains: their own comparison
    }

    private boolean isUtf8() throws SQLException {
        if (utf8 == null) {
            try (PreparedStatement s = connection.prepareStatement("SELECT pg_catalog.pg_encoding_to_char(encoding) "
                    + "FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()");
                    ResultSet rs = s.executeQuery()) {
                utf8 = rs.next() && "UTF8".equals(rs.getString(1));
            }
        }
        return utf8;
    }

    private Collation read(long oid) throws SQLException {
        String locale = serverVersion >= 17 ? "COALESCE(colllocale, collcollate)"
                : serverVersion >= 15 ? "COALESCE(colliculocale, collcollate)" : "collcollate";
        try (PreparedStatement s = connection.prepareStatement("SELECT collname, collprovider::text, " + locale
                + " FROM pg_catalog.pg_collation WHERE oid = ?")) {
            s.setLong(1, oid);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return new Collation("collation " + oid, "?", "?");
                }
                return new Collation(rs.getString(1), rs.getString(2), rs.getString(3));
            }
        }
    }

    private Collation databaseDefault() throws SQLException {
        String sql = serverVersion >= 17 ? "SELECT datlocprovider::text, COALESCE(datlocale, datcollate)"
                : serverVersion >= 15 ? "SELECT datlocprovider::text, COALESCE(daticulocale, datcollate)"
                : "SELECT 'c', datcollate";
        try (PreparedStatement s = connection.prepareStatement(sql
                + " FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return new Collation("default", rs.getString(1), rs.getString(2));
        }
    }

    /** A collation as the catalogue shows it: name, provider ({@code c} libc, {@code i} ICU, {@code b} builtin), locale. */
    private static final class Collation {
        final String name;
        final String provider;
        final String locale;

        Collation(String name, String provider, @Nullable String locale) {
            this.name = name;
            this.provider = provider;
            this.locale = locale == null ? "" : locale;
        }

        boolean comparesBytes() {
            switch (provider) {
                case "c":
                    return locale.equals("C") || locale.equals("POSIX");
                case "b":
                    return locale.equals("C") || locale.toUpperCase(Locale.ROOT).equals("C.UTF-8");
                default:
                    return false;
            }
        }

        String label(boolean utf8) {
            String provided = provider.equals("c") ? "libc" : provider.equals("i") ? "icu"
                    : provider.equals("b") ? "builtin" : provider;
            return '"' + name + "\" (" + provided + " " + locale + (utf8 ? "" : ", database encoding not UTF8") + ")";
        }
    }
}
