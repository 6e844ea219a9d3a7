package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;

/**
 * T-SQL text: quoted names and the key range predicates of chunks (SQL Server has no row-value
 * comparison, so {@code (a, b) > (x, y)} is written out), with each key value bound as text or number
 * and cast to its column's type, so that it compares exactly as the stored value does.
 */
final class SqlServerSql {
    private SqlServerSql() {}

    /** {@code [name]}, a closing bracket doubled. */
    static String quote(String name) {
        return "[" + name.replace("]", "]]") + "]";
    }

    static String qualified(TableId table) {
        return quote(table.schema()) + "." + quote(table.table());
    }

    /**
     * {@code keys > (?, ...)} written out: the OR over each column of the columns before it equal and
     * it greater, after a bound on the first column alone ({@code k1 >= ?}), which the OR implies and
     * which lets SQL Server seek the key's index instead of scanning (and, SERIALIZABLE, locking) the
     * table; {@link #bindTuple} binds each value once per comparison it appears in.
     */
    static String after(List<SqlServerColumn> keys) {
        return firstColumn(keys, ">=") + expand(keys, ">", false);
    }

    /** {@code keys <= (?, ...)} written out, after {@code k1 <= ?}. */
    static String atMost(List<SqlServerColumn> keys) {
        return firstColumn(keys, "<=") + expand(keys, "<", true);
    }

    private static String firstColumn(List<SqlServerColumn> keys, String op) {
        return quote(keys.get(0).name()) + " " + op + " " + param(keys.get(0)) + " AND ";
    }

    private static String expand(List<SqlServerColumn> keys, String op, boolean orEqual) {
        StringBuilder sql = new StringBuilder("(");
        int terms = orEqual ? keys.size() + 1 : keys.size();
        for (int i = 0; i < terms; i++) {
            sql.append(i == 0 ? "(" : " OR (");
            for (int j = 0; j <= i && j < keys.size(); j++) {
                SqlServerColumn k = keys.get(j);
                String cmp = j < i || i == keys.size() ? " = " : " " + op + " ";
                sql.append(j == 0 ? "" : " AND ").append(quote(k.name())).append(cmp).append(param(k));
            }
            sql.append(")");
        }
        return sql.append(")").toString();
    }

    private static String param(SqlServerColumn key) {
        return "CAST(? AS " + key.dataType() + ")";
    }

    /** Binds the values of {@link #after} or {@link #atMost} from {@code index}; returns the next index. */
    static int bindTuple(PreparedStatement s, int index, List<SqlServerColumn> keys, Object[] values, boolean orEqual)
            throws SQLException {
        bind(s, index++, keys.get(0), values[0]); // the first column's bound
        int terms = orEqual ? keys.size() + 1 : keys.size();
        for (int i = 0; i < terms; i++) {
            for (int j = 0; j <= i && j < keys.size(); j++) {
                bind(s, index++, keys.get(j), values[j]);
            }
        }
        return index;
    }

    private static void bind(PreparedStatement s, int index, SqlServerColumn key, Object value) throws SQLException {
        if (value instanceof Long) {
            s.setLong(index, (Long) value);
        } else if (value instanceof BigDecimal) {
            s.setBigDecimal(index, (BigDecimal) value);
        } else if (value instanceof Boolean) {
            s.setBoolean(index, (Boolean) value);
        } else {
            s.setString(index, text(key, value));
        }
    }

    /** A key value as text its column's type reads back exactly (temporal values with the column's digits). */
    static String text(SqlServerColumn key, Object value) {
        int digits = key.valueType().precision();
        if (value instanceof LocalDateTime) {
            LocalDateTime t = (LocalDateTime) value;
            return t.toLocalDate() + " " + time(t.toLocalTime(), digits);
        }
        if (value instanceof Duration) {
            return time(LocalTime.ofNanoOfDay(((Duration) value).toNanos()), digits);
        }
        if (value instanceof LocalDate || value instanceof UUID) {
            return value.toString();
        }
        return (String) value;
    }

    private static String time(LocalTime t, int digits) {
        String hms = t.withNano(0).format(DateTimeFormatter.ISO_LOCAL_TIME);
        return digits <= 0 ? hms : hms + "." + String.format("%09d", t.getNano()).substring(0, Math.min(digits, 9));
    }
}
