package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.split.TestPosition;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * Random change events that reach for the edges: every value kind with its extremes (decimals of
 * hundreds of digits and negative scales, NaN payloads and signed zeros, lone surrogates, the first
 * and last dates), special values, nulls and absent fields, nested arrays, empty rows, schema change
 * rows, shapes and shape changes, with and without positions and transactions.
 */
public final class RandomChangeEvents {
    private static final ValueKind[] KINDS = ValueKind.values();
    private final Random random;
    private final boolean bytesInArrays;

    /**
     * Events from {@code random}; with {@code bytesInArrays}, array values may hold byte strings,
     * which {@code Row.equals} compares by identity (so only a field-by-field comparison judges them).
     */
    public RandomChangeEvents(Random random, boolean bytesInArrays) {
        this.random = random;
        this.bytesInArrays = bytesInArrays;
    }

    public ChangeEvent event() {
        Op op = Op.values()[random.nextInt(Op.values().length)];
        TableId table = TableId.of(name(8), random.nextInt(4) == 0 ? null : name(8), name(8));
        ChangeEvent.Builder b = ChangeEvent.builder(op, table, source());
        if (op == Op.SCHEMA_CHANGE && random.nextBoolean()) {
            b.after(SchemaChangeRows.of(table, DdlType.values()[random.nextInt(3)], random.nextBoolean() ? text(40) : null));
        } else {
            b.before(random.nextInt(3) == 0 ? null : row()).after(random.nextInt(3) == 0 ? null : row());
        }
        b.shape(random.nextInt(3) == 0 ? null : shape());
        b.transaction(random.nextBoolean() ? null
                : TransactionInfo.of(name(12), random.nextInt(3) == 0 ? TransactionInfo.UNKNOWN : random.nextLong(),
                        random.nextInt(3) == 0 ? TransactionInfo.UNKNOWN : random.nextLong()));
        List<ShapeChange> changes = new ArrayList<>();
        for (int i = random.nextInt(3) == 0 ? random.nextInt(4) : 0; i > 0; i--) {
            changes.add(shapeChange());
        }
        return b.shapeChanges(changes).build();
    }

    /** A change as a connector classifies one: each kind by its factory. */
    private ShapeChange shapeChange() {
        RowShape.Column from = column(name(5));
        switch (ShapeChange.Kind.values()[random.nextInt(ShapeChange.Kind.values().length)]) {
            case TABLE_CREATED:
                return ShapeChange.tableCreated(shape());
            case TABLE_DROPPED:
                return ShapeChange.tableDropped();
            case TABLE_REPLACED:
                return ShapeChange.tableReplaced(shape(), name(30));
            case COLUMN_ADDED:
                return ShapeChange.columnAdded(from, random.nextInt(20));
            case COLUMN_REMOVED:
                return ShapeChange.columnRemoved(from);
            case COLUMN_RENAMED:
                return ShapeChange.columnRenamed(from, column(name(5)));
            case COLUMN_TYPE_CHANGED:
            case COLUMN_NULLABILITY_CHANGED:
                String type = random.nextBoolean() ? from.dataType() : "x" + from.dataType();
                RowShape.Column to = RowShape.Column.of(from.name(), type, !from.nullable());
                return ShapeChange.columnChanged(from, to);
            case PRIMARY_KEY_CHANGED:
                return ShapeChange.primaryKeyChanged(names(), names());
            case UNCHANGED:
                return ShapeChange.unchanged();
            default:
                return ShapeChange.unknown(columns(), columns(), random.nextBoolean() ? "" : name(30));
        }
    }

    private SourceInfo source() {
        String connector = random.nextBoolean() ? "postgres" : name(10);
        if (random.nextInt(3) == 0) {
            return SourceInfo.snapshot(connector, random.nextBoolean() ? null : new TestPosition(random.nextLong()));
        }
        return SourceInfo.stream(connector, new TestPosition(random.nextLong()), random.nextInt(4) == 0 ? null : instant());
    }

    Row row() {
        int n = random.nextInt(10);
        List<String> names = new ArrayList<>(uniqueNames(n));
        List<ValueType> types = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            types.add(valueType(true));
        }
        RowType type = RowType.of(names, types);
        Row.Builder row = Row.builder(type);
        for (int i = 0; i < n; i++) {
            if (random.nextInt(6) != 0) { // else absent
                row.set(i, random.nextInt(6) == 0 ? null : value(type.type(i)));
            }
        }
        return row.build();
    }

    private ValueType valueType(boolean arrays) {
        ValueKind kind = KINDS[random.nextInt(KINDS.length)];
        switch (kind) {
            case ARRAY:
                return arrays ? ValueType.arrayOf(valueType(false)) : valueType(false);
            case BYTES:
            case BITS:
                return arrays || bytesInArrays ? ValueType.of(kind) : valueType(false);
            case TIME:
            case TIMESTAMP:
            case TIMESTAMP_TZ:
                return ValueType.temporal(kind, random.nextInt(11) - 1);
            default:
                return ValueType.of(kind);
        }
    }

    /** A value of {@code type}'s kind, never null. */
    Object value(ValueType type) {
        switch (type.kind()) {
            case BOOLEAN:
                return random.nextBoolean();
            case INTEGER:
                return random.nextBoolean() ? (long) random.nextInt() : random.nextInt() & 0xFFFFFFFFL;
            case BIGINT:
                return pick(Long.MIN_VALUE, Long.MAX_VALUE, 0L, random.nextLong());
            case UNSIGNED_BIGINT:
                return pick(BigInteger.ZERO, BigInteger.TWO.pow(64).subtract(BigInteger.ONE), new BigInteger(64, random));
            case DECIMAL:
                return random.nextInt(5) == 0 ? pick(SpecialValue.NAN, SpecialValue.POSITIVE_INFINITY,
                        SpecialValue.NEGATIVE_INFINITY) : decimal();
            case FLOAT32:
                return pick(Float.NaN, -0.0f, 0.0f, Float.NEGATIVE_INFINITY, Float.MIN_VALUE,
                        Float.intBitsToFloat(random.nextInt()));
            case FLOAT64:
                return pick(Double.NaN, -0.0d, Double.POSITIVE_INFINITY, Double.MAX_VALUE,
                        Double.longBitsToDouble(random.nextLong()));
            case TEXT:
                return text(random.nextInt(10) == 0 ? 3000 : 20);
            case BYTES:
            case BITS:
                return bytes(random.nextInt(10) == 0 ? 5000 : random.nextInt(12));
            case DATE:
                return random.nextInt(5) == 0 ? special()
                        : pick(LocalDate.MIN, LocalDate.MAX, LocalDate.ofEpochDay(random.nextInt(2_000_000) - 1_000_000));
            case TIME:
                return pick(Duration.ZERO, Duration.ofHours(24), Duration.ofSeconds(-838 * 3600 - 3599, 0),
                        Duration.ofSeconds(random.nextInt(7 * 86400) - 3 * 86400, random.nextInt(1_000_000_000)));
            case TIMESTAMP:
                return random.nextInt(5) == 0 ? special() : pick(LocalDateTime.MIN, LocalDateTime.MAX,
                        LocalDateTime.of(LocalDate.ofEpochDay(random.nextInt(2_000_000) - 1_000_000),
                                LocalTime.ofNanoOfDay(Math.floorMod(random.nextLong(), 86_400_000_000_000L))));
            case TIMESTAMP_TZ:
                return random.nextInt(5) == 0 ? pick(SpecialValue.POSITIVE_INFINITY, SpecialValue.NEGATIVE_INFINITY)
                        : pick(Instant.MIN, Instant.MAX, instant());
            case UUID:
                return new UUID(random.nextLong(), random.nextLong());
            case ARRAY:
                return list(type.element(), 1 + random.nextInt(3));
            default:
                throw new AssertionError(type);
        }
    }

    /** Elements of {@code element}, nulls, and (a further dimension) lists of them. */
    private List<Object> list(ValueType element, int depth) {
        List<Object> list = new ArrayList<>();
        for (int i = random.nextInt(5); i > 0; i--) {
            int r = random.nextInt(8);
            list.add(r == 0 ? null : r == 1 && depth > 1 ? list(element, depth - 1) : value(element));
        }
        return list;
    }

    private BigDecimal decimal() {
        BigInteger unscaled = new BigInteger(random.nextInt(10) == 0 ? 700 : 1 + random.nextInt(80), random);
        return new BigDecimal(random.nextBoolean() ? unscaled.negate() : unscaled, random.nextInt(60) - 10);
    }

    private SpecialValue special() {
        return pick(SpecialValue.POSITIVE_INFINITY, SpecialValue.NEGATIVE_INFINITY,
                SpecialValue.zeroDate(random.nextBoolean() ? "0000-00-00" : "2024-00-00 00:00:00"));
    }

    private Instant instant() {
        return Instant.ofEpochSecond(random.nextLong() % 31_556_889_864_403_199L, random.nextInt(1_000_000_000));
    }

    private RowShape shape() {
        List<RowShape.Column> columns = new ArrayList<>();
        for (String name : uniqueNames(random.nextInt(6))) {
            columns.add(column(name));
        }
        List<String> key = new ArrayList<>();
        for (RowShape.Column c : columns) {
            if (random.nextBoolean()) {
                key.add(c.name());
            }
        }
        return RowShape.of(name(6), name(6), columns, key);
    }

    private List<RowShape.Column> columns() {
        List<RowShape.Column> columns = new ArrayList<>();
        for (int i = random.nextInt(3); i > 0; i--) {
            columns.add(column(name(5)));
        }
        return columns;
    }

    private RowShape.Column column(String name) {
        return RowShape.Column.of(name, pick("bigint", "numeric(12,4)", RowShape.UNKNOWN_TYPE, name(10)),
                random.nextBoolean());
    }

    private List<String> names() {
        return new ArrayList<>(uniqueNames(random.nextInt(3)));
    }

    private Set<String> uniqueNames(int n) {
        Set<String> names = new LinkedHashSet<>();
        while (names.size() < n) {
            names.add(names.size() + "_" + name(4));
        }
        return names;
    }

    /** Text of up to {@code max} UTF-16 units as values hold it: well-formed, and lone surrogates too. */
    String text(int max) {
        return text(max, true);
    }

    /** A name (of a table, column, connector, transaction): well-formed Unicode, as databases give them. */
    String name(int max) {
        return text(max, false);
    }

    private String text(int max, boolean loneSurrogates) {
        StringBuilder sb = new StringBuilder();
        for (int i = random.nextInt(max + 1); i > 0; i--) {
            switch (random.nextInt(6)) {
                case 0:
                    char c = (char) random.nextInt(0x10000);
                    sb.append(loneSurrogates || !Character.isSurrogate(c) ? c : 'x');
                    break;
                case 1:
                    sb.appendCodePoint(0x10000 + random.nextInt(0x100000));
                    break;
                case 2:
                    sb.append('\0');
                    break;
                default:
                    sb.append((char) (' ' + random.nextInt(95)));
            }
        }
        return sb.toString();
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    @SafeVarargs
    private <T> T pick(T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
