package io.rustcdc.flink.testing.consistency;

import java.util.List;

/**
 * One of the suite's tables: {@code key..., v int, ver int, pad varchar(200)}, whose rows are
 * numbered by a slot (a positive int) that maps one to one onto the table's key. {@code ver} grows
 * by one with every update of a row, so a row going back to an older version shows.
 */
enum SuiteTable {
    /** A bigint key. */
    INTEGER_KEY("c_int", List.of("id"), "id BIGINT NOT NULL"),
    /** A composite key whose second part is text. */
    COMPOSITE_KEY("c_comp", List.of("a", "b"), "a INT NOT NULL, b VARCHAR(24) NOT NULL"),
    /** A text key whose order is not the slots' order. */
    TEXT_KEY("c_text", List.of("k"), "k VARCHAR(40) NOT NULL"),
    /**
     * A bigint key, in a table created while the job runs: the source must find it, snapshot it while
     * it streams, then stream it. Statements on it fail (and roll back) until it exists.
     */
    CREATED_LATER("c_later", List.of("id"), "id BIGINT NOT NULL");

    final String name;
    final List<String> keyColumns;
    private final String keyDefinitions;

    SuiteTable(String name, List<String> keyColumns, String keyDefinitions) {
        this.name = name;
        this.keyColumns = keyColumns;
        this.keyDefinitions = keyDefinitions;
    }

    /**
     * @param textKeyCollation what follows the text key's type ({@link ConsistencyTarget#textKeyCollation})
     * @param clause what follows the column list ({@link ConsistencyTarget#tableClause})
     */
    String create(String textKeyCollation, String clause) {
        String keys = this == TEXT_KEY ? keyDefinitions.replace(" NOT NULL", textKeyCollation + " NOT NULL") : keyDefinitions;
        return "CREATE TABLE " + name + " (" + keys + ", v INT NOT NULL, ver INT NOT NULL, pad VARCHAR(200), "
                + "PRIMARY KEY (" + String.join(", ", keyColumns) + "))" + clause;
    }

    String columns() {
        return String.join(", ", keyColumns) + ", v, ver, pad";
    }

    /** The key's SQL literals for {@code slot}, comma separated, in key order. */
    String keyValues(int slot) {
        switch (this) {
            case INTEGER_KEY:
            case CREATED_LATER:
                return Integer.toString(slot);
            case COMPOSITE_KEY:
                return (slot % 7) + ", '" + compositeText(slot) + "'";
            default:
                return "'" + text(slot) + "'";
        }
    }

    /** {@code key = literal [AND ...]} for {@code slot}. */
    String keyIs(int slot) {
        switch (this) {
            case INTEGER_KEY:
            case CREATED_LATER:
                return "id = " + slot;
            case COMPOSITE_KEY:
                return "a = " + (slot % 7) + " AND b = '" + compositeText(slot) + "'";
            default:
                return "k = '" + text(slot) + "'";
        }
    }

    /** {@code key = literal [, ...]}: sets the key of a row to {@code slot}'s. */
    String keySet(int slot) {
        return keyIs(slot).replace(" AND ", ", ");
    }

    /** A predicate over a range of keys of about {@code width} slots from {@code slot} on. */
    String keyRange(int slot, int width) {
        switch (this) {
            case INTEGER_KEY:
            case CREATED_LATER:
                return "id BETWEEN " + slot + " AND " + (slot + width);
            case COMPOSITE_KEY:
                return "a = " + (slot % 7) + " AND b BETWEEN '" + compositeText(slot) + "' AND '"
                        + compositeText(slot + 7 * width) + "'";
            default:
                return "k BETWEEN '" + text(slot) + "' AND '" + text(slot + width) + "'";
        }
    }

    private static String compositeText(int slot) {
        return String.format("b%07d", slot / 7);
    }

    /** Base 36, so that text order differs from number order ('k10' sorts before 'k2'). */
    private static String text(int slot) {
        return "k" + Integer.toString(slot, 36);
    }
}
