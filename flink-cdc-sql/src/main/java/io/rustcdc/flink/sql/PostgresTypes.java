package io.rustcdc.flink.sql;

import io.rustcdc.flink.postgres.PostgresOptions;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * PostgreSQL's types in Flink SQL, from the declared type as {@code format_type()} writes it:
 * {@code smallint}, {@code integer}, {@code oid}, {@code numeric(12,4)}, {@code integer[]}.
 */
final class PostgresTypes extends ExactTypes {
    private static final long serialVersionUID = 1L;
    private static final Pattern NUMERIC = Pattern.compile("numeric\\((\\d+),(\\d+)\\)");

    @Override
    BigInteger[] integerRange(String declared, ValueKind kind) {
        switch (declared) {
            case "smallint":
                return bits(16);
            case "integer":
                return bits(32);
            case "oid":
            case "xid":
            case "cid":
                return unsignedBits(32);
            default:
                return range64(kind);
        }
    }

    @Override
    @Nullable
    int[] decimalDigits(String declared) {
        Matcher m = NUMERIC.matcher(declared);
        return m.matches() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))} : null;
    }

    @Override
    String elementType(String declared) {
        return declared.replaceFirst("\\[]$", "");
    }

    @Override
    public String wholeRowsRemedy(TableId table) {
        return "ALTER TABLE " + table.qualifiedName() + " REPLICA IDENTITY FULL";
    }

    /** An update's unchanged TOASTed values come with the whole old row, or are read from the table. */
    @Override
    public String unsentValuesRemedy(TableId table) {
        return wholeRowsRemedy(table) + ", or set '" + PostgresOptions.TOAST_RESELECT.key() + "' = 'true'";
    }

    @Override
    public String partialRowCause() {
        return "an unchanged TOASTed value, or a delete carrying only the key";
    }

    @Override
    public boolean upsertNeedsOnlyKeys() {
        return true;
    }

    @Override
    public boolean keepsValues(String before, String after) {
        return ValueKeepingTypes.postgres(before, after);
    }
}
