package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * SQL Server's types in Flink SQL, from the declared type as the connector writes it ({@code
 * SqlServerColumn.dataType()}): {@code tinyint}, {@code decimal(12,4)}, {@code money}, {@code
 * nvarchar(max)}, {@code datetime2(7)}, {@code time(7)}, {@code datetimeoffset(7)}, {@code rowversion}.
 * {@code tinyint} is unsigned (0 to 255), so it needs a SMALLINT; {@code money} and {@code smallmoney}
 * hold 19 and 10 digits at scale 4. The value kinds (datetimeoffset as its ISO-8601 text, uniqueidentifier
 * as a UUID) are the connector's.
 */
final class SqlServerTypes extends ExactTypes {
    private static final long serialVersionUID = 1L;
    private static final Pattern DECIMAL = Pattern.compile("(?:decimal|numeric)\\((\\d+),(\\d+)\\)");

    @Override
    BigInteger[] integerRange(String declared, ValueKind kind) {
        switch (declared) {
            case "tinyint":
                return unsignedBits(8);
            case "smallint":
                return bits(16);
            case "int":
                return bits(32);
            default:
                return range64(kind); // bigint
        }
    }

    @Override
    @Nullable
    int[] decimalDigits(String declared) {
        switch (declared) {
            case "money":
                return new int[] {19, 4};
            case "smallmoney":
                return new int[] {10, 4};
            default: {
                Matcher m = DECIMAL.matcher(declared);
                return m.matches() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))} : null;
            }
        }
    }

    /**
     * No setting makes a change table hold the old values it leaves out, so the remedy is the upsert
     * changelog, which needs none (said here, since the message of a delete's row names no other).
     */
    @Override
    public String wholeRowsRemedy(TableId table) {
        return "SQL Server's change tables leave out the old value of text, ntext and image columns, and of "
                + "varchar(max), nvarchar(max), varbinary(max) and xml columns an update did not change, and no "
                + "setting changes that: use 'changelog-mode' = 'upsert', which needs only the old row's primary key";
    }

    @Override
    public String partialRowCause() {
        return "a change table holds no old value of a text, ntext or image column, and one of a varchar(max), "
                + "nvarchar(max), varbinary(max) or xml column only when the update changed it";
    }

    /** False only because {@link #wholeRowsRemedy} already names the upsert changelog: it needs only keys. */
    @Override
    public boolean upsertNeedsOnlyKeys() {
        return false;
    }
}
