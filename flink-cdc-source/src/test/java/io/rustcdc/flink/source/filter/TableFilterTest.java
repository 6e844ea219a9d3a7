package io.rustcdc.flink.source.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.TableId;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class TableFilterTest {

    /** Every row of the pattern table: pattern, schema ('' = a bare table), table, expected. */
    @ParameterizedTest(name = "{0} vs {1}.{2} -> {3}")
    @CsvSource({
        // * is a true catch-all, qualified or bare
        "*, public, orders, true",
        "*, '', orders, true",
        // *.* spans the dot and never matches a bare name
        "*.*, public, orders, true",
        "*.*, '', orders, false",
        // public.*
        "public.*, public, orders, true",
        "public.*, sales, orders, false",
        "public.*, '', orders, false",
        // *.audit_log
        "*.audit_log, public, audit_log, true",
        "*.audit_log, tenant_a, audit_log, true",
        "*.audit_log, public, audit_log2, false",
        "*.audit_log, '', audit_log, false",
        // public.orders: that table in that schema, nothing bare
        "public.orders, public, orders, true",
        "public.orders, sales, orders, false",
        "public.orders, '', orders, false",
        "public.orders, public, orders_archive, false",
        // public.tmp_*
        "public.tmp_*, public, tmp_1, true",
        "public.tmp_*, public, tmp_, true",
        "public.tmp_*, public, temp_1, false",
        // ? is exactly one character
        "audit_?, public, audit_1, true",
        "audit_?, public, audit_10, false",
        "audit_?, public, audit_, false",
        "audit_?, '', audit_1, true",
        // * and ? do not cross the dot
        "public*, public, orders, false",
        "pub?ic.orders, public, orders, true",
        "public.ord*, public, orders, true",
        // an unqualified pattern is schema-agnostic
        "users, public, users, true",
        "users, tenant_private, users, true",
        "users, '', users, true",
        "users, public, users2, false",
        // case folding, both ways
        "PUBLIC.Orders, public, orders, true",
        "public.orders, PUBLIC, ORDERS, true",
        "Audit_?, public, AUDIT_7, true",
        // other characters are literal
        "a+b, public, a+b, true",
        "a+b, public, aab, false",
    })
    void includePatternTable(String pattern, String schema, String table, boolean expected) {
        TableFilter filter = TableFilter.of(List.of(pattern), List.of());
        assertThat(filter.matches(id(schema, table))).isEqualTo(expected);
    }

    @Test
    void aStarMatchesNamesThatHoldAStarOrQuestionMark() {
        // a '*' in the name was once taken for the pattern's own character, which then never backtracked
        assertThat(TableFilter.of(List.of("*.*"), List.of()).matches(id("*baa", "_x"))).isTrue();
        assertThat(TableFilter.of(List.of("public.*"), List.of()).matches(id("public", "*a"))).isTrue();
        assertThat(TableFilter.of(List.of("public.*b"), List.of()).matches(id("public", "*ab"))).isTrue();
        assertThat(TableFilter.of(List.of("public.a?"), List.of()).matches(id("public", "a?"))).isTrue();
    }

    @Test
    void excludeListUsesTheSameMatcher() {
        TableFilter filter = TableFilter.of(List.of(), List.of("public.tmp_*"));
        assertThat(filter.matches(id("public", "tmp_x"))).isFalse();
        assertThat(filter.matches(id("public", "orders"))).isTrue();
        assertThat(filter.matches(id("sales", "tmp_x"))).isTrue();
    }

    @Test
    void literalStarInExcludeListIsACatchAllNotANoOp() {
        TableFilter filter = TableFilter.of(List.of(), List.of("*"));
        assertThat(filter.matches(id("public", "orders"))).isFalse();
        assertThat(filter.matches(id("", "bare"))).isFalse();
    }

    @Test
    void emptyListsCaptureEverything() {
        assertThat(TableFilter.of(List.of(), List.of()).matches(id("any", "table"))).isTrue();
        assertThat(TableFilter.all().matches(id("", "bare"))).isTrue();
    }

    @Test
    void blankEntriesAreIgnoredNotCatchAlls() {
        TableFilter onlyBlanks = TableFilter.of(List.of("", "  "), List.of(" "));
        assertThat(onlyBlanks.includes()).isEmpty();
        assertThat(onlyBlanks.excludes()).isEmpty();
        assertThat(onlyBlanks.matches(id("public", "orders"))).isTrue();

        TableFilter withBlank = TableFilter.of(List.of("", "public.orders"), List.of());
        assertThat(withBlank.matches(id("public", "orders"))).isTrue();
        assertThat(withBlank.matches(id("public", "customers"))).isFalse();
    }

    @Test
    void includeListTakesPrecedenceOverExcludeList() {
        TableFilter filter = TableFilter.of(List.of("public.*"), List.of("public.orders"));
        assertThat(filter.matches(id("public", "orders"))).isTrue();
        assertThat(filter.matches(id("sales", "orders"))).isFalse();
    }

    @Test
    void anyOfSeveralIncludePatterns() {
        TableFilter filter = TableFilter.of(List.of("public.orders", "sales.*"), List.of());
        assertThat(filter.matches(id("public", "orders"))).isTrue();
        assertThat(filter.matches(id("sales", "x"))).isTrue();
        assertThat(filter.matches(id("public", "x"))).isFalse();
    }

    @Test
    void namesUnqualifiedIncludeEntriesSoTheyCanBeWarnedAbout() {
        TableFilter filter = TableFilter.of(List.of("users", "public.orders", " audit_? "), List.of("tmp"));
        assertThat(filter.unqualifiedIncludes()).containsExactly("users", "audit_?");
    }

    @Test
    void mysqlTablesMatchOnDatabaseAsSchema() {
        TableFilter filter = TableFilter.of(List.of("shop.orders"), List.of());
        assertThat(filter.matches(TableId.of("shop", "shop", "orders"))).isTrue();
        assertThat(filter.matches(TableId.of("other", "other", "orders"))).isFalse();
    }

    @Test
    void longPatternsMatchWithoutBlowingUp() {
        String name = "a".repeat(5000);
        TableFilter filter = TableFilter.of(List.of("*a*a*a*a*a*a*a*a*b"), List.of());
        assertThat(filter.matches(id("s", name))).isFalse();
    }

    @Test
    void onlyCapturesItsTableWhateverItsName() {
        long seed = Long.getLong("rustcdc.filter.seed", System.nanoTime());
        System.out.println("TableFilterTest.onlyCapturesItsTableWhateverItsName seed " + seed
                + " (replay: -Drustcdc.filter.seed=" + seed + ")");
        java.util.Random random = new java.util.Random(seed);
        String alphabet = "aAB.*? \t_é1";
        int missedAsPattern = 0;
        for (int n = 0; n < 20_000; n++) {
            String schema = random.nextInt(4) == 0 ? null : name(random, alphabet);
            TableId id = TableId.of("db", schema, name(random, alphabet));
            TableFilter only = TableFilter.only(id);
            assertThat(only.matches(id)).as("seed %d: %s", seed, id).isTrue();
            TableId other = random.nextBoolean() ? TableId.of("db", schema, name(random, alphabet))
                    : TableId.of("db", schema == null || random.nextBoolean() ? name(random, alphabet) : null, id.table());
            assertThat(only.matches(other)).as("seed %d: %s against %s", seed, id, other).isEqualTo(other.equals(id));
            String plain = schema == null ? id.table() : schema + "." + id.table();
            if (!TableFilter.of(List.of(plain), List.of()).matches(id)) {
                missedAsPattern++;
            }
        }
        assertThat(missedAsPattern).as("seed %d: names that as a plain pattern miss their own table", seed).isPositive();
        TableId dotted = TableId.of("a.b", "a.b", "t");
        assertThat(TableFilter.of(List.of("a.b.t"), List.of()).matches(dotted)).isFalse();
        assertThat(TableFilter.only(dotted).matches(dotted)).isTrue();
        assertThat(TableFilter.only(dotted).matches(TableId.of("a.b", "a.b", "T"))).isFalse();
        assertThat(TableFilter.only(dotted).matches(TableId.of("a.b", "a?b", "t"))).isFalse();
    }

    private static String name(java.util.Random random, String alphabet) {
        StringBuilder s = new StringBuilder();
        for (int i = 1 + random.nextInt(6); i > 0; i--) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    private static TableId id(String schema, String table) {
        return TableId.of("db", schema.isEmpty() ? null : schema, table);
    }
}
