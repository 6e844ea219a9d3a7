package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.history.ShapeDiff;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * Classifies what one CREATE or ALTER TABLE statement did, from the shape held before it, the
 * catalogue's shape read after it and the statement's clauses ({@link MySqlColumnDdl}): the
 * clauses, applied to the shape before, must give the catalogue's column names in order, each
 * column the statement defines must have the type and nullability it declares, every other column
 * must be as it was and the key must be the one the clauses leave. Then the columns' identities are
 * the statement's (a {@code RENAME COLUMN} or {@code CHANGE a b} is a rename, never a drop and an
 * add) and {@link ShapeDiff} classifies ({@link ShapeChange.Kind#UNCHANGED} when the statement left the
 * shape as it was). When anything disagrees (the table changed again before the
 * stream read the statement) or cannot be read, the statement is one {@link ShapeChange.Kind#UNKNOWN}.
 */
final class MySqlShapeChanges {
    private MySqlShapeChanges() {}

    /**
     * @param exactBefore whether {@code before} is exact ({@link HeldShapes}); a shape read from the
     *     catalogue with the table's rows may already be the statement's result, so a column the
     *     statement redefines as it was there is UNKNOWN
     */
    static List<ShapeChange> altered(@Nullable RowShape before, boolean exactBefore, @Nullable RowShape after,
            MySqlColumnDdl ddl) {
        if (after == null) {
            return unknown(before, null, "the catalogue no longer shows the table (dropped or renamed since)");
        }
        if (ddl.unread != null) {
            return unknown(before, after, "the source does not read the clause " + ddl.unread + " of the statement");
        }
        if (before == null) {
            return unknown(null, after, "the source holds no shape of the table from before the statement: it read "
                    + "no row and no classified change of the table since the stream opened");
        }
        Replay replay = new Replay(before);
        String misfit = replay.run(ddl.steps);
        misfit = misfit != null ? misfit : replay.misfit(after, exactBefore);
        if (misfit != null) {
            return unknown(before, after, misfit);
        }
        List<ShapeChange> changes = filled(ShapeDiff.classify(before, after, replay.identities()), ddl.steps);
        return changes.isEmpty() ? List.of(ShapeChange.unchanged()) : changes;
    }

    /** The reason of a column added whose definition {@linkplain ColumnDefinition#filled fills} the rows before it. */
    static final String FILLED = "the rows before it read its default, AUTO_INCREMENT or generated value, not null";

    /**
     * {@code changes} with each column added whose definition fills the rows before it ({@link
     * ColumnDefinition#filled}) marked so: a sink that gives the old rows null for it would differ from the table.
     */
    private static List<ShapeChange> filled(List<ShapeChange> changes, List<MySqlColumnDdl.Step> steps) {
        return ShapeChange.markFilled(changes, name -> steps.stream().anyMatch(s -> s.action == MySqlColumnDdl.Action.ADD
                && s.name.equalsIgnoreCase(name) && s.definition != null && s.definition.filled), FILLED);
    }

    /** A CREATE TABLE whose columns the statement lists and the catalogue shows as declared: the table created. */
    static List<ShapeChange> created(@Nullable RowShape after, MySqlColumnDdl ddl) {
        if (after == null) {
            return unknown(null, null, "the catalogue no longer shows the table (dropped or renamed since)");
        }
        if (ddl.unread != null) {
            return unknown(null, after, "the source does not read the clause " + ddl.unread + " of the statement");
        }
        Replay replay = new Replay(RowShape.of(after.schema(), after.table(), List.of(), List.of()));
        String misfit = replay.run(ddl.steps);
        misfit = misfit != null ? misfit : replay.misfit(after, true);
        return misfit != null ? unknown(null, after, misfit) : List.of(ShapeChange.tableCreated(after));
    }

    /** One UNKNOWN naming the columns that differ between the shapes (all of them when none does), and why. */
    static List<ShapeChange> unknown(@Nullable RowShape before, @Nullable RowShape after, String why) {
        List<RowShape.Column> was = before == null ? List.of() : before.columns();
        List<RowShape.Column> is = after == null ? List.of() : after.columns();
        List<RowShape.Column> gone = new ArrayList<>(was);
        gone.removeAll(is);
        List<RowShape.Column> added = new ArrayList<>(is);
        added.removeAll(was);
        return gone.isEmpty() && added.isEmpty() ? List.of(ShapeChange.unknown(was, is, why))
                : List.of(ShapeChange.unknown(gone, added, why));
    }

    /** The clauses applied to the column names and key of the shape before. */
    private static final class Replay {
        private final RowShape before;
        private final List<Slot> slots = new ArrayList<>();
        private List<String> key;
        /** The statement set the key, which makes its columns NOT NULL. */
        private boolean keySet;
        /** The set of the statement's {@code CONVERT TO CHARACTER SET}; null when it has none. */
        @Nullable private String convertTo;

        Replay(RowShape before) {
            this.before = before;
            before.columns().forEach(c -> slots.add(new Slot(c.name())));
            this.key = new ArrayList<>(before.primaryKey());
        }

        /** Applies the clauses; why they do not fit the shape before, or null. */
        @Nullable
        String run(List<MySqlColumnDdl.Step> steps) {
            for (MySqlColumnDdl.Step s : steps) {
                String misfit = apply(s);
                if (misfit != null) {
                    return "the statement's clause " + s + " does not fit the shape held before it (" + misfit
                            + "): that shape was read after the statement, or the statement is not all this source read";
                }
            }
            return null;
        }

        @Nullable
        private String apply(MySqlColumnDdl.Step s) {
            int i = find(s.name);
            switch (s.action) {
                case ADD: {
                    if (i >= 0) {
                        return s.conditional ? null : "it has the column";
                    }
                    int at = position(s.after, slots.size());
                    if (at < 0) {
                        return "it has no column " + s.after;
                    }
                    slots.add(at, new Slot(null, s.name, s.definition));
                    setKeyFrom(s);
                    return null;
                }
                case DROP:
                    if (i < 0) {
                        return s.conditional ? null : "it has no such column";
                    }
                    slots.remove(i);
                    key.removeIf(k -> k.equalsIgnoreCase(s.name));
                    return null;
                case RENAME:
                case REDEFINE: {
                    if (i < 0) {
                        return s.conditional ? null : "it has no such column";
                    }
                    int other = find(s.newName);
                    if (other >= 0 && other != i) {
                        return "it has a column " + s.newName + " already";
                    }
                    Slot slot = slots.get(i);
                    // MODIFY A (or CHANGE a a) keeps the column's name as it is; CHANGE a A renames it
                    String name = s.newName.equals(s.name) ? slot.name : s.newName;
                    key.replaceAll(k -> k.equalsIgnoreCase(slot.name) ? name : k);
                    slot.name = name;
                    if (s.definition != null) {
                        slot.definition = s.definition;
                        setKeyFrom(s);
                    }
                    if (s.after != null) {
                        slots.remove(i);
                        int at = position(s.after, -1);
                        if (at < 0) {
                            return "it has no column " + s.after;
                        }
                        slots.add(at, slot);
                    }
                    return null;
                }
                case ADD_KEY: {
                    if (!key.isEmpty()) {
                        return "it has a primary key " + key;
                    }
                    for (String k : s.key) {
                        int at = find(k);
                        if (at < 0) {
                            return "it has no column " + k;
                        }
                        key.add(slots.get(at).name);
                    }
                    keySet = true;
                    return null;
                }
                case CONVERT:
                    convertTo = s.name;
                    return null;
                default:
                    if (key.isEmpty()) {
                        return "it has no primary key";
                    }
                    key = new ArrayList<>();
                    return null;
            }
        }

        private void setKeyFrom(MySqlColumnDdl.Step s) {
            if (s.definition.primaryKey) {
                key = new ArrayList<>(List.of(slots.get(find(s.action == MySqlColumnDdl.Action.ADD ? s.name : s.newName)).name));
                keySet = true;
            }
        }

        /** Where a column goes: FIRST is 0, AFTER c after c, none {@code otherwise}; -1 when c is not there. */
        private int position(@Nullable String after, int otherwise) {
            if (after == null) {
                return otherwise < 0 ? -1 : otherwise;
            }
            if (after.isEmpty()) {
                return 0;
            }
            int at = find(after);
            return at < 0 ? -1 : at + 1;
        }

        private int find(@Nullable String name) {
            for (int i = 0; i < slots.size(); i++) {
                if (slots.get(i).name.equalsIgnoreCase(name)) {
                    return i;
                }
            }
            return -1;
        }

        /** Why the catalogue's shape is not what the clauses made of the shape before; null when it is. */
        @Nullable
        String misfit(RowShape after, boolean exactBefore) {
            List<String> names = new ArrayList<>();
            slots.forEach(s -> names.add(s.name));
            List<String> shown = new ArrayList<>();
            after.columns().forEach(c -> shown.add(c.name()));
            String changedAgain = ": the table changed again before the stream read the statement";
            if (!names.equals(shown)) {
                return "the statement leaves the columns " + names + ", the catalogue shows " + shown + changedAgain;
            }
            if (!key.equals(after.primaryKey())) {
                return "the statement leaves the primary key " + key + ", the catalogue shows " + after.primaryKey()
                        + changedAgain;
            }
            for (int i = 0; i < slots.size(); i++) {
                String misfit = slots.get(i).misfit(after.columns().get(i), exactBefore);
                if (misfit != null) {
                    return misfit;
                }
            }
            return null;
        }

        /** Each column of the shape before that is still there, by its name after. */
        Map<String, String> identities() {
            Map<String, String> same = new HashMap<>();
            slots.stream().filter(s -> s.origin != null).forEach(s -> same.put(s.origin, s.name));
            return same;
        }

        /** One column of the shape the clauses leave. */
        private final class Slot {
            /** Its name in the shape before; null for an added column. */
            @Nullable final String origin;
            String name;
            /** Its definition in the statement; null when the statement does not define it. */
            @Nullable ColumnDefinition definition;

            Slot(String name) {
                this(name, name, null);
            }

            Slot(@Nullable String origin, String name, @Nullable ColumnDefinition definition) {
                this.origin = origin;
                this.name = name;
                this.definition = definition;
            }

            @Nullable
            String misfit(RowShape.Column shown, boolean exactBefore) {
                boolean keyed = keySet && key.contains(name);
                RowShape.Column was = origin == null ? null : before.column(origin).orElseThrow();
                if (definition == null) {
                    boolean nullable = !keyed && was.nullable();
                    if (!ColumnCharsets.leftAs(convertTo, was.dataType(), shown.dataType()) || nullable != shown.nullable()) {
                        return "column " + name + ", which the statement does not define, was " + was + " and the "
                                + "catalogue shows " + shown + ": the table changed again before the stream read it";
                    }
                    boolean textAsItWas = convertTo != null && ColumnCharsets.charset(was.dataType()) != null
                            && was.dataType().equals(shown.dataType());
                    return exactBefore || !textAsItWas ? null : "the statement converts column " + name + " to "
                            + convertTo + ", which the shape held before it has, and that shape was read from the "
                            + "catalogue with the table's rows, perhaps after the statement";
                }
                boolean nullable = !key.contains(name) && (definition.nullable == null || definition.nullable);
                if (!WrittenTypes.same(definition.type, ColumnCharsets.baseType(shown.dataType()))
                        || !ColumnCharsets.fits(definition.charset, shown.dataType()) || nullable != shown.nullable()) {
                    String set = definition.charset == null ? "" : ColumnCharsets.SUFFIX + definition.charset;
                    return "the statement declares column " + name + " " + definition.type + set
                            + (nullable ? " NULL" : " NOT NULL") + " and the catalogue shows " + shown + ": a type the "
                            + "server writes otherwise, or the table changed again before the stream read the statement";
                }
                if (!exactBefore && was != null && origin.equals(name) && was.dataType().equals(shown.dataType())
                        && was.nullable() == shown.nullable()) {
                    return "the statement redefines column " + name + " as the shape held before it has it, and that "
                            + "shape was read from the catalogue with the table's rows, perhaps after the statement";
                }
                return null;
            }
        }
    }
}
