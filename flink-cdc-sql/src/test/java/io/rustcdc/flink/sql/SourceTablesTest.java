package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SourceTablesTest {

    private static TableId pg(String schema, String table) {
        return TableId.of("shop", schema, table);
    }

    @Test
    void aNameIsOneTableMatchedExactly() {
        SourceTables orders = SourceTables.qualified("shop", "orders", "public");
        assertThat(orders.isPattern()).isFalse();
        assertThat(orders.literal()).isEqualTo(pg("public", "orders"));
        assertThat(orders.matches(pg("public", "orders"))).isTrue();
        assertThat(orders.matches(pg("public", "Orders"))).as("a name is matched as the database spells it").isFalse();
        assertThat(orders.matches(pg("sales", "orders"))).isFalse();
        assertThat(orders.includePattern()).isEqualTo("public.orders");
        assertThat(SourceTables.qualified("shop", "sales.orders", "public").literal()).isEqualTo(pg("sales", "orders"));
        assertThat(SourceTables.qualified("shop", "sales.odd.name", "public").literal())
                .isEqualTo(pg("sales", "odd.name"));
    }

    @Test
    void aPatternMatchesAsTableFiltersDoCaseInsensitively() {
        SourceTables shards = SourceTables.qualified("shop", "orders_*", "public");
        assertThat(shards.isPattern()).isTrue();
        assertThat(shards.includePattern()).isEqualTo("public.orders_*");
        assertThat(shards.matches(pg("public", "orders_1"))).isTrue();
        assertThat(shards.matches(pg("public", "ORDERS_2"))).isTrue();
        assertThat(shards.matches(pg("public", "orders_"))).isTrue();
        assertThat(shards.matches(pg("public", "orders"))).isFalse();
        assertThat(shards.matches(pg("Public", "orders_1"))).as("the schema is a name: exact").isFalse();
        assertThat(shards.matches(pg("sales", "orders_1"))).isFalse();
        SourceTables anySchema = SourceTables.qualified("shop", "tenant_?.orders", "public");
        assertThat(anySchema.matches(pg("tenant_a", "orders"))).isTrue();
        assertThat(anySchema.matches(pg("tenant_ab", "orders"))).isFalse();
        assertThat(anySchema.matches(pg("tenant_a", "Orders"))).isFalse();
        assertThatThrownBy(anySchema::literal).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void mySqlDatabaseAndTableMayBothBePatterns() {
        SourceTables shards = SourceTables.of(null, "shop_*", "orders_?");
        assertThat(shards.matches(TableId.of("shop_eu", "shop_eu", "orders_1"))).isTrue();
        assertThat(shards.matches(TableId.of("crm", "crm", "orders_1"))).isFalse();
        assertThat(shards.includePattern()).isEqualTo("shop_*.orders_?");
        assertThat(SourceTables.of(null, "shop", "orders").literal()).isEqualTo(TableId.of("shop", "shop", "orders"));
    }

    @Test
    void escapesMakeWildcardsAndDotsLiteralAndOtherBackslashesAreRefused() {
        SourceTables star = SourceTables.qualified("shop", "public.a\\*b", "public");
        assertThat(star.isPattern()).isFalse();
        assertThat(star.literal()).isEqualTo(pg("public", "a*b"));
        assertThat(star.matches(pg("public", "axxb"))).isFalse();
        assertThat(star.includePattern()).as("the framework's globs have no escape: wider, never narrower")
                .isEqualTo("public.a?b");
        SourceTables dotted = SourceTables.qualified("shop", "my\\.schema.t", "public");
        assertThat(dotted.literal()).isEqualTo(pg("my.schema", "t"));
        assertThat(dotted.includePattern()).isEqualTo("my?schema.t");
        assertThat(SourceTables.qualified("shop", "odd\\.name", "public").literal()).isEqualTo(pg("public", "odd.name"));
        assertThatThrownBy(() -> SourceTables.qualified("shop", "orders_\\d+", "public"))
                .isInstanceOf(CdcException.class).hasMessageContaining("a backslash escapes only *, ?, . and \\");
        assertThatThrownBy(() -> SourceTables.qualified("shop", "orders\\", "public"))
                .hasMessageContaining("before its end");
        assertThatThrownBy(() -> SourceTables.qualified("shop", "public.", "public")).isInstanceOf(CdcException.class);
    }

    /** A name the database resolved without regard to case reads the rows of the table as the database spells it. */
    @Test
    void aNameIsSpelledAsTheCatalogueListsIt() {
        TableId lower = TableId.of("shop", "dbo", "orders");
        TableId upper = TableId.of("shop", "dbo", "Orders");
        assertThat(CdcTableFactory.spelled(upper, List.of(lower))).isEqualTo(lower);
        assertThat(CdcTableFactory.spelled(upper, List.of(lower, upper))).isEqualTo(upper);
        assertThat(CdcTableFactory.spelled(TableId.of("shop", "DBO", "ORDERS"), List.of(lower, upper)))
                .as("ambiguous: as written").isEqualTo(TableId.of("shop", "DBO", "ORDERS"));
        assertThat(CdcTableFactory.spelled(upper, List.of())).isEqualTo(upper);
    }

    @Test
    void aFlinkCdcRegularExpressionGetsAHint() {
        assertThat(SourceTables.qualified("shop", "orders_.*", "public").regexHint()).contains("write orders_*");
        assertThat(SourceTables.qualified("shop", "orders_*", "public").regexHint()).isEmpty();
    }

    /**
     * Random names and patterns: a name always matches exactly itself (escaped), and the framework's
     * filter from {@link SourceTables#includePattern()} never misses a table {@link SourceTables#matches}.
     */
    @Test
    void randomNamesAndPatternsNeverEscapeTheFrameworksFilter() {
        long seed = Long.getLong("rustcdc.shards.seed", System.nanoTime());
        System.out.println("SourceTablesTest seed " + seed + " (replay with -Drustcdc.shards.seed=" + seed + ")");
        Random random = new Random(seed);
        String alphabet = "aAb_.*?\\x";
        for (int round = 0; round < 20_000; round++) {
            String schema = word(random, "aAb_.*?\\");
            String table = word(random, "aAb_.*?\\");
            TableId id = pg(schema, table);
            SourceTables exact = SourceTables.of("shop", SourceTables.escape(schema), SourceTables.escape(table));
            assertThat(exact.isPattern()).as("seed %d", seed).isFalse();
            assertThat(exact.literal()).as("seed %d", seed).isEqualTo(id);
            assertThat(exact.matches(id)).as("seed %d", seed).isTrue();
            String otherTable = word(random, "aAb_.*?\\");
            assertThat(exact.matches(pg(schema, otherTable))).as("seed %d", seed).isEqualTo(otherTable.equals(table));
            SourceTables pattern;
            try {
                pattern = SourceTables.of("shop", word(random, alphabet), word(random, alphabet));
            } catch (CdcException badEscape) {
                continue;
            }
            List<TableId> candidates = new ArrayList<>(List.of(id, pg(schema, otherTable)));
            for (TableId t : candidates) {
                if (pattern.matches(t)) {
                    assertThat(TableFilter.of(List.of(pattern.includePattern()), List.of()).matches(t))
                            .as("seed %d: %s catches %s", seed, pattern.includePattern(), t).isTrue();
                }
            }
            assertThat(TableFilter.of(List.of(exact.includePattern()), List.of()).matches(id)).as("seed %d", seed).isTrue();
        }
    }

    private static String word(Random random, String alphabet) {
        StringBuilder s = new StringBuilder();
        int length = 1 + random.nextInt(5);
        for (int i = 0; i < length; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }
}
