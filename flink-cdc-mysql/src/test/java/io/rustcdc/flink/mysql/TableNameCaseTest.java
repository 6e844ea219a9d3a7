package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.TableId;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The table a statement's names stand for under each lower_case_table_names (no server test: see mysql.md). */
class TableNameCaseTest {
    private static TableId t(String database, String table) {
        return TableId.of(database, database, table);
    }

    @Test
    void zeroTakesNamesAsSpelled() {
        assertThat(TableNameCase.of(0).resolve(t("Shop", "Orders"), Set.of(t("shop", "orders")))).isEqualTo(t("Shop", "Orders"));
    }

    @Test
    void oneFoldsNamesToLowerCaseAsTheServerStoresThem() {
        TableNameCase one = TableNameCase.of(1);
        assertThat(one.resolve(t("Shop", "ORDERS"), null)).isEqualTo(t("shop", "orders"));
        // beyond ASCII too, one character at a time (U+0130 folds to i, not to i and a combining dot)
        assertThat(one.resolve(t("shop", "\u00c9T\u00c9_\u0130"), null)).isEqualTo(t("shop", "\u00e9t\u00e9_i"));
    }

    @Test
    void twoFindsTheCapturedTableWhoseNamesDifferOnlyInCase() {
        TableNameCase two = TableNameCase.of(2);
        Set<TableId> captured = Set.of(t("Shop", "Orders"), t("shop", "items"));
        assertThat(two.resolve(t("SHOP", "orders"), captured)).isEqualTo(t("Shop", "Orders"));
        assertThat(two.resolve(t("shop", "ITEMS"), captured)).isEqualTo(t("shop", "items"));
        assertThat(two.resolve(t("shop", "Other"), captured)).isEqualTo(t("shop", "Other"));
        assertThat(two.resolve(t("SHOP", "orders"), null)).isEqualTo(t("SHOP", "orders"));
    }
}
