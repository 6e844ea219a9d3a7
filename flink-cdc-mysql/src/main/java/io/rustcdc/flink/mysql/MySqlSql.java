package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/** Identifiers, key tuples and key parameters in MySQL's SQL. */
final class MySqlSql {
    private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

    private MySqlSql() {}

    static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    static String qualified(TableId table) {
        return quote(table.database()) + "." + quote(table.table());
    }

    static String tuple(List<String> columns) {
        return "(" + columns.stream().map(MySqlSql::quote).collect(Collectors.joining(", ")) + ")";
    }

    static String placeholders(List<String> columns) {
        return "(" + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
    }

    /** Binds a key's values from parameter {@code first} on (nothing when null) and returns the next parameter. */
    static int bind(PreparedStatement s, int first, @Nullable Object[] key) throws SQLException {
        if (key == null) {
            return first;
        }
        for (int i = 0; i < key.length; i++) {
            Object v = key[i];
            int p = first + i;
            if (v instanceof Long) {
                s.setLong(p, (Long) v);
            } else if (v instanceof BigInteger) {
                s.setBigDecimal(p, new BigDecimal((BigInteger) v));
            } else if (v instanceof BigDecimal) {
                s.setBigDecimal(p, (BigDecimal) v);
            } else if (v instanceof byte[]) {
                s.setBytes(p, (byte[]) v);
            } else if (v instanceof LocalDateTime) {
                s.setString(p, DATETIME.format((LocalDateTime) v));
            } else if (v instanceof Instant) {
                s.setString(p, DATETIME.format(LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC)));
            } else if (v instanceof SpecialValue) {
                s.setString(p, ((SpecialValue) v).temporalText());
            } else {
                s.setString(p, String.valueOf(v));
            }
        }
        return first + key.length;
    }
}
