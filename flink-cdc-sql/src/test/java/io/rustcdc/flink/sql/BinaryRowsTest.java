package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import io.rustcdc.flink.testing.Seeds;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/**
 * {@link BinaryRows} against Flink's own conversion of the same values: random rows of every type the SQL layer
 * produces, of every size, one after another through one writer (a field of a row before must never show
 * through, nor a row after change a row emitted), read back field by field and compared byte for byte with what
 * Flink's {@link RowDataSerializer} makes of a {@link GenericRowData} of the same values (text, ASCII or not,
 * encoded as Flink encodes it). Replay a run with {@code -Drustcdc.binaryrows.seed=N}.
 */
class BinaryRowsTest {
    private static final List<DataType> TYPES = List.of(DataTypes.BOOLEAN(), DataTypes.TINYINT(), DataTypes.SMALLINT(),
            DataTypes.INT(), DataTypes.BIGINT(), DataTypes.FLOAT(), DataTypes.DOUBLE(), DataTypes.DECIMAL(10, 2),
            DataTypes.DECIMAL(18, 0), DataTypes.DECIMAL(19, 4), DataTypes.DECIMAL(38, 10), DataTypes.STRING(),
            DataTypes.BYTES(), DataTypes.DATE(), DataTypes.TIME(3), DataTypes.TIMESTAMP(0), DataTypes.TIMESTAMP(3),
            DataTypes.TIMESTAMP(6), DataTypes.TIMESTAMP(9), DataTypes.TIMESTAMP_LTZ(3), DataTypes.TIMESTAMP_LTZ(6),
            DataTypes.ARRAY(DataTypes.INT()), DataTypes.ARRAY(DataTypes.STRING()),
            DataTypes.ARRAY(DataTypes.DECIMAL(38, 5)), DataTypes.ARRAY(DataTypes.TIMESTAMP_LTZ(6)));

    @Test
    void everyRowReadsBackAsFlinkWritesIt() {
        Seeds.forEach("rustcdc.binaryrows.seed", "rustcdc.binaryrows.runs", 1, BinaryRowsTest::rowsOfOneType);
    }

    private static void rowsOfOneType(Random random) {
        List<LogicalType> types = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            types.add(TYPES.get(random.nextInt(TYPES.size())).getLogicalType());
        }
        BinaryRows rows = new BinaryRows(types);
        RowDataSerializer flink = new RowDataSerializer(types.toArray(new LogicalType[0]));
        RowData.FieldGetter[] getters = new RowData.FieldGetter[types.size()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(types.get(i), i);
        }
        List<BinaryRowData> emitted = new ArrayList<>();
        List<GenericRowData> expectations = new ArrayList<>();
        for (int n = 0; n < 2000; n++) {
            RowKind kind = RowKind.values()[random.nextInt(RowKind.values().length)];
            GenericRowData expected = new GenericRowData(kind, types.size());
            rows.start(kind);
            for (int i = 0; i < types.size(); i++) {
                int choice = random.nextInt(10);
                if (choice == 0) {
                    continue; // never set: null
                }
                Object value = choice == 1 ? null : value(types.get(i), random);
                expected.setField(i, value);
                rows.set(i, value);
            }
            BinaryRowData written = rows.finish();
            assertThat(written.getRowKind()).isEqualTo(kind);
            for (int i = 0; i < types.size(); i++) {
                Object got = getters[i].getFieldOrNull(written);
                Object want = expected.getField(i);
                assertThat(same(got, want, types.get(i))).as("row %s field %s (%s): %s, expected %s", n, i,
                        types.get(i), got, want).isTrue();
            }
            assertThat(written).isEqualTo(flink.toBinaryRow(expected));
            emitted.add(written);
            expectations.add(expected);
        }
        // a row once emitted is never changed by the rows written after it
        for (int n = 0; n < emitted.size(); n++) {
            assertThat(emitted.get(n)).as("row %s, after all the others", n)
                    .isEqualTo(flink.toBinaryRow(expectations.get(n)));
        }
    }

    private static boolean same(Object got, Object want, LogicalType type) {
        if (got == null || want == null) {
            return got == want;
        }
        if (type instanceof ArrayType) {
            ArrayData a = (ArrayData) got;
            ArrayData b = (ArrayData) want;
            if (a.size() != b.size()) {
                return false;
            }
            LogicalType element = ((ArrayType) type).getElementType();
            ArrayData.ElementGetter getter = ArrayData.createElementGetter(element);
            for (int i = 0; i < a.size(); i++) {
                if (!same(getter.getElementOrNull(a, i), getter.getElementOrNull(b, i), element)) {
                    return false;
                }
            }
            return true;
        }
        if (got instanceof byte[]) {
            return java.util.Arrays.equals((byte[]) got, (byte[]) want);
        }
        return got.equals(want);
    }

    private static Object value(LogicalType type, Random r) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return r.nextBoolean();
            case TINYINT:
                return (byte) r.nextInt();
            case SMALLINT:
                return (short) r.nextInt();
            case INTEGER:
            case DATE:
                return r.nextInt();
            case TIME_WITHOUT_TIME_ZONE:
                return r.nextInt(86_400_000);
            case BIGINT:
                return r.nextLong();
            case FLOAT:
                return Float.intBitsToFloat(r.nextInt());
            case DOUBLE:
                return Double.longBitsToDouble(r.nextLong());
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                BigInteger unscaled = new BigInteger(d.getPrecision() * 3, r).mod(BigInteger.TEN.pow(d.getPrecision()));
                return DecimalData.fromBigDecimal(new BigDecimal(r.nextBoolean() ? unscaled : unscaled.negate(),
                        d.getScale()), d.getPrecision(), d.getScale());
            }
            case VARCHAR:
                return StringData.fromString(text(r));
            case VARBINARY: {
                byte[] b = new byte[r.nextInt(40)];
                r.nextBytes(b);
                return b;
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return timestamp(((TimestampType) type).getPrecision(), r);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return timestamp(((LocalZonedTimestampType) type).getPrecision(), r);
            case ARRAY: {
                Object[] elements = new Object[r.nextInt(5)];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = r.nextInt(4) == 0 ? null : value(((ArrayType) type).getElementType(), r);
                }
                return new GenericArrayData(elements);
            }
            default:
                throw new IllegalArgumentException(type.toString());
        }
    }

    /** A timestamp of at most {@code precision} fractional digits, before and after 1970. */
    private static TimestampData timestamp(int precision, Random r) {
        long unit = (long) Math.pow(10, 9 - precision); // nanoseconds
        long millis = r.nextLong() % 100_000_000_000_000L;
        if (precision < 3) {
            millis -= Math.floorMod(millis, unit / 1_000_000);
        }
        int nanos = precision <= 3 ? 0 : (int) (r.nextInt(1_000_000) / unit * unit);
        return TimestampData.fromEpochMillis(millis, nanos);
    }

    /**
     * Text of short and long runs, ASCII and not, some longer than a field's 7 inline bytes; now and then an
     * unpaired surrogate, which no database text decodes to, but which must still be encoded as Flink does.
     */
    private static String text(Random r) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(4) == 0 ? r.nextInt(8) : r.nextInt(300);
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(100);
            b.appendCodePoint(kind < 70 ? 'a' + r.nextInt(26) : kind < 90 ? 0xA0 + r.nextInt(0x700)
                    : kind < 99 ? 0x1F600 + r.nextInt(80) : 0xD800 + r.nextInt(0x800));
        }
        return b.toString();
    }
}
