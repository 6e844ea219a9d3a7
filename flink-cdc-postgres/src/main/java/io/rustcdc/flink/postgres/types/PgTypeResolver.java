package io.rustcdc.flink.postgres.types;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Resolves a column's type OID and modifier to a {@link PgType}, reading {@code pg_type} once per
 * type and modifier. Not thread-safe; one per connection.
 */
public final class PgTypeResolver {
    private static final String QUERY = "SELECT t.typtype, t.typinput = 'array_in'::regproc AS is_array, t.typelem, "
            + "t.typdelim, format_type(t.oid, ?) FROM pg_catalog.pg_type t WHERE t.oid = ?";

    private final Connection connection;
    private final Map<Long, PgType> cache = new HashMap<>();

    public PgTypeResolver(Connection connection) {
        this.connection = connection;
    }

    public PgType resolve(int oid, int typmod) throws SQLException {
        long key = (long) oid << 32 | (typmod & 0xFFFFFFFFL);
        PgType known = cache.get(key);
        if (known == null) {
            known = load(oid, typmod);
            cache.put(key, known);
        }
        return known;
    }

    private PgType load(int oid, int typmod) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(QUERY)) {
            s.setInt(1, typmod);
            s.setInt(2, oid);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("No type with OID " + oid + " in pg_type");
                }
                String typtype = rs.getString(1);
                boolean isArray = rs.getBoolean(2);
                int elementOid = (int) rs.getLong(3);
                String delimiter = rs.getString(4);
                String declared = rs.getString(5);
                if (isArray && elementOid != 0) {
                    PgType element = resolve(elementOid, typmod);
                    return PgType.array(declared, element, delimiter.charAt(0));
                }
                if (!"b".equals(typtype)) {
                    // enums, domains, ranges, composites, pseudo-types: their PostgreSQL text
                    return PgType.text(declared);
                }
                return PgType.scalar(oid, typmod, declared);
            }
        }
    }
}
