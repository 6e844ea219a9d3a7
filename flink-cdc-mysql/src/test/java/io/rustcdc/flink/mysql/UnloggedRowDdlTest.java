package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UnloggedRowDdlTest {

    private static String read(String sql) {
        return String.valueOf(UnloggedRowDdl.read(sql, "d", SqlMode.DEFAULT));
    }

    @Test
    void partitionStatementsThatChangeRowsNameTheirTables() {
        assertThat(read("ALTER TABLE part TRUNCATE PARTITION p0")).isEqualTo("TRUNCATE PARTITION | d.part");
        assertThat(read("alter table `o`.`part` truncate partition all")).isEqualTo("TRUNCATE PARTITION | o.part");
        assertThat(read("ALTER TABLE part DROP PARTITION p1, p2")).isEqualTo("DROP PARTITION | d.part");
        assertThat(read("ALTER TABLE part DROP PARTITION IF EXISTS p1")).isEqualTo("DROP PARTITION | d.part");
        assertThat(read("ALTER TABLE part DISCARD TABLESPACE")).isEqualTo("DISCARD TABLESPACE | d.part");
        assertThat(read("ALTER TABLE part IMPORT PARTITION p0, p1 TABLESPACE"))
                .isEqualTo("IMPORT PARTITION TABLESPACE | d.part");
        assertThat(read("ALTER TABLE part DISCARD PARTITION ALL TABLESPACE"))
                .isEqualTo("DISCARD PARTITION TABLESPACE | d.part");
        assertThat(read("/* x */ ALTER TABLE IF EXISTS part IMPORT TABLESPACE")).isEqualTo("IMPORT TABLESPACE | d.part");
    }

    @Test
    void anExchangeOrAConversionNamesBothTables() {
        assertThat(read("ALTER TABLE part EXCHANGE PARTITION p1 WITH TABLE swap"))
                .isEqualTo("EXCHANGE PARTITION | d.part | d.swap");
        assertThat(read("ALTER TABLE o.part EXCHANGE PARTITION p1 WITH TABLE `x`.`swap` WITHOUT VALIDATION"))
                .isEqualTo("EXCHANGE PARTITION | o.part | x.swap");
        assertThat(read("ALTER TABLE part CONVERT PARTITION p1 TO TABLE o.out"))
                .isEqualTo("CONVERT PARTITION | d.part | o.out");
        assertThat(read("ALTER TABLE part CONVERT TABLE `in` TO PARTITION p9 VALUES LESS THAN (100)"))
                .isEqualTo("CONVERT TABLE | d.part | d.in");
    }

    @Test
    void statementsThatKeepTheRowsAreNone() {
        for (String sql : new String[] {"ALTER TABLE part ADD PARTITION (PARTITION p9 VALUES LESS THAN (100))",
            "ALTER TABLE part REORGANIZE PARTITION p0, p1 INTO (PARTITION p01 VALUES LESS THAN (20))",
            "ALTER TABLE part COALESCE PARTITION 2", "ALTER TABLE part REBUILD PARTITION p0",
            "ALTER TABLE part OPTIMIZE PARTITION p0", "ALTER TABLE part ANALYZE PARTITION ALL",
            "ALTER TABLE part CHECK PARTITION p0", "ALTER TABLE part REPAIR PARTITION p0",
            "ALTER TABLE part REMOVE PARTITIONING", "ALTER TABLE part PARTITION BY HASH (id) PARTITIONS 4",
            "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4", "ALTER TABLE t DROP COLUMN `partition`",
            "ALTER TABLE t ADD COLUMN `truncate` INT, DROP INDEX i", "ALTER TABLE t COMMENT 'DROP PARTITION p0'",
            "TRUNCATE TABLE part", "DROP TABLE part", "ALTER TABLE t RENAME TO u", "BEGIN",
            "INSERT INTO t VALUES (1)", "ALTER TABLE t ADD CONSTRAINT c CHECK (a IN (SELECT 1))"}) {
            assertThat(read(sql)).as(sql).isEqualTo("null");
        }
    }
}
