package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The table a statement's names stand for under each lower_case_table_names (1 is run against MariaDB by
 * MySqlNameCaseITCase; 2 has no server test: see mysql.md). Names beyond ASCII are folded by the server, here
 * a stand-in that, like utf8mb3_general_ci, leaves U+1E9E alone.
 */
class TableNameCaseTest {
    private static final List<String> ASKED = new ArrayList<>();
    private static final Function<String, String> SERVER = name -> {
        ASKED.add(name);
        StringBuilder lower = new StringBuilder();
        name.chars().forEach(c -> lower.append(c == '\u1e9e' ? (char) c : Character.toLowerCase((char) c)));
        return lower.toString();
    };

    private static TableId t(String database, String table) {
        return TableId.of(database, database, table);
    }

    @Test
    void zeroTakesNamesAsSpelled() {
        assertThat(TableNameCase.of(0, SERVER).resolve(t("Shop", "Orders"), Set.of(t("shop", "orders"))))
                .isEqualTo(t("Shop", "Orders"));
    }

    @Test
    void oneFoldsNamesToLowerCaseAsTheServerStoresThem() {
        TableNameCase one = TableNameCase.of(1, SERVER);
        assertThat(one.resolve(t("Shop", "ORDERS"), null)).isEqualTo(t("shop", "orders"));
        // beyond ASCII, as the server folds: asked once per name (Java would fold U+1E9E to U+00DF)
        ASKED.clear();
        assertThat(one.resolve(t("shop", "\u00c9T\u00c9_\u0130"), null)).isEqualTo(t("shop", "\u00e9t\u00e9_i"));
        assertThat(one.resolve(t("shop", "STRA\u1e9eE"), null)).isEqualTo(t("shop", "stra\u1e9ee"));
        assertThat(one.resolve(t("shop", "STRA\u1e9eE"), null)).isEqualTo(t("shop", "stra\u1e9ee"));
        assertThat(ASKED).containsExactly("\u00c9T\u00c9_\u0130", "STRA\u1e9eE");
    }

    @Test
    void twoFindsTheCapturedTableWhoseNamesDifferOnlyInCase() {
        TableNameCase two = TableNameCase.of(2, SERVER);
        Set<TableId> captured = Set.of(t("Shop", "Orders"), t("shop", "items"));
        assertThat(two.resolve(t("SHOP", "orders"), captured)).isEqualTo(t("Shop", "Orders"));
        assertThat(two.resolve(t("shop", "ITEMS"), captured)).isEqualTo(t("shop", "items"));
        assertThat(two.resolve(t("shop", "Other"), captured)).isEqualTo(t("shop", "Other"));
        assertThat(two.resolve(t("SHOP", "orders"), null)).isEqualTo(t("SHOP", "orders"));
    }
}
