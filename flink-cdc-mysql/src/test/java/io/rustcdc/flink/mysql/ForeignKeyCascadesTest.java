package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.TableId;
import org.junit.jupiter.api.Test;

class ForeignKeyCascadesTest {
    private static final TableId CHILD = TableId.of("shop", "shop", "child");

    @Test
    void keysWhoseActionsChangeRowsAreNamedWithTheirActions() {
        String ddl = "CREATE TABLE `child` (\\n  `id` int(11) NOT NULL,\\n  `p` int(11) DEFAULT NULL,\\n"
                + "  PRIMARY KEY (`id`),\\n"
                + "  CONSTRAINT `plain` FOREIGN KEY (`p`) REFERENCES `parent` (`id`),\\n"
                + "  CONSTRAINT `no``action` FOREIGN KEY (`p`) REFERENCES `parent` (`id`) "
                + "ON DELETE NO ACTION ON UPDATE RESTRICT,\\n"
                + "  CONSTRAINT `up` FOREIGN KEY (`p`, `q`) REFERENCES `other`.`parent` (`a`, `b`) ON UPDATE CASCADE,\\n"
                + "  CONSTRAINT `both` FOREIGN KEY (`p`) REFERENCES `parent` (`id`) ON DELETE SET NULL ON UPDATE SET DEFAULT\\n"
                + ") ENGINE=InnoDB";
        assertThat(ForeignKeyCascades.cascadingKeys(CHILD, ddl)).containsExactly(
                "shop.child (key up to other.parent: ON UPDATE CASCADE)",
                "shop.child (key both to shop.parent: ON DELETE SET NULL, ON UPDATE SET DEFAULT)");
    }
}
