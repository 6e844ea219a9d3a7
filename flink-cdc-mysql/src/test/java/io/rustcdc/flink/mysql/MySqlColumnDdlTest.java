package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MySqlColumnDdlTest {

    private static String alter(String sql) {
        return MySqlColumnDdl.alter(sql, SqlMode.DEFAULT).toString();
    }

    private static String create(String sql) {
        return MySqlColumnDdl.create(sql, SqlMode.DEFAULT).toString();
    }

    @Test
    void renamesNameBothColumns() {
        assertThat(alter("ALTER TABLE t RENAME COLUMN a TO b")).isEqualTo("[RENAME a TO b]");
        assertThat(alter("alter table `db`.`t` rename column `a``x` to `b c`")).isEqualTo("[RENAME a`x TO b c]");
        assertThat(alter("ALTER TABLE t CHANGE a b VARCHAR(20) NOT NULL"))
                .isEqualTo("[REDEFINE a AS b varchar(20) NOT NULL]");
        assertThat(alter("ALTER TABLE t CHANGE COLUMN IF EXISTS `a` `b` int unsigned DEFAULT NULL FIRST"))
                .isEqualTo("[REDEFINE a AS b int unsigned FIRST]");
        assertThat(alter("ALTER TABLE t MODIFY COLUMN a DECIMAL ( 14, 4 ) NULL COMMENT 'not null' AFTER id"))
                .isEqualTo("[REDEFINE a AS a decimal(14,4) NULL AFTER id]");
        // a rename of an index or of the table is none of a column
        assertThat(alter("ALTER TABLE t RENAME INDEX i TO j, RENAME KEY k TO l, RENAME TO u")).isEqualTo("[]");
        assertThat(MySqlColumnDdl.renamed("ALTER TABLE t RENAME AS u, ADD c INT", SqlMode.DEFAULT).toString())
                .isEqualTo("[ADD c int]");
        assertThat(MySqlColumnDdl.renamed("/* moved */ RENAME TABLE t TO u, v TO w", SqlMode.DEFAULT).toString()).isEqualTo("[]");
        assertThat(alter("ALTER TABLE t RENAME COLUMN a TO b, RENAME COLUMN b TO a"))
                .isEqualTo("[RENAME a TO b, RENAME b TO a]");
    }

    @Test
    void addsAndDropsColumnsWithTheirPlaceAndDeclaration() {
        assertThat(alter("ALTER TABLE t ADD COLUMN note TEXT, ADD n INT NOT NULL DEFAULT 0 AFTER id, ADD f ENUM('a', 'B') FIRST"))
                .isEqualTo("[ADD note text, ADD n int NOT NULL AFTER id, ADD f enum('a','B') FIRST]");
        assertThat(alter("ALTER TABLE t ADD COLUMN (a INT, b VARCHAR(3) CHARACTER SET latin1 COLLATE latin1_bin)"))
                .isEqualTo("[ADD a int, ADD b varchar(3) character set latin1]");
        assertThat(alter("ALTER TABLE t MODIFY b TEXT CHARSET 'ascii', MODIFY c CHAR(2) COLLATE utf8_bin NOT NULL, "
                + "CHANGE d d VARCHAR(2) BINARY, CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"))
                .isEqualTo("[REDEFINE b AS b text character set ascii, REDEFINE c AS c char(2) character set utf8 NOT NULL, "
                        + "REDEFINE d AS d varchar(2), CONVERT TO CHARACTER SET utf8mb4]");
        assertThat(alter("ALTER TABLE t ADD COLUMN IF NOT EXISTS g INT AS (id + 1) VIRTUAL, DROP COLUMN IF EXISTS x, DROP y"))
                .isEqualTo("[ADD g int, DROP x, DROP y]");
        assertThat(alter("ALTER TABLE t ADD COLUMN `index` BINARY(16) UNIQUE KEY")).isEqualTo("[ADD index binary(16)]");
        assertThat(alter("ALTER TABLE t ADD COLUMN id2 BIGINT PRIMARY KEY")).isEqualTo("[ADD id2 bigint PRIMARY KEY]");
    }

    @Test
    void readsTheKeyAndLeavesOutWhatChangesNoColumn() {
        assertThat(alter("ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (id, b(10) DESC)"))
                .isEqualTo("[DROP PRIMARY KEY, ADD PRIMARY KEY [id, b]]");
        assertThat(alter("ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY USING BTREE (`id`)")).isEqualTo("[ADD PRIMARY KEY [id]]");
        assertThat(alter("ALTER TABLE t DROP INDEX `PRIMARY`")).isEqualTo("[DROP PRIMARY KEY]");
        assertThat(alter("ALTER TABLE t ADD INDEX i (a), ADD UNIQUE KEY u (b), ADD CONSTRAINT fk FOREIGN KEY (a) "
                + "REFERENCES p (id), DROP INDEX i, DROP FOREIGN KEY fk, ALTER COLUMN a SET DEFAULT 3, ALTER a DROP "
                + "DEFAULT, ALTER COLUMN b SET INVISIBLE, ENGINE=InnoDB, ALGORITHM=INSTANT, LOCK=NONE, COMMENT 'x', "
                + "DEFAULT CHARSET=utf8mb4")).isEqualTo("[]");
    }

    @Test
    void aClauseItDoesNotReadMakesTheStatementUnread() {
        assertThat(alter("ALTER TABLE t CONVERT TO CHARACTER SET binary")).startsWith("unread: 'CONVERT TO");
        assertThat(alter("ALTER TABLE t CONVERT TO CHARSET DEFAULT")).startsWith("unread: 'CONVERT TO");
        assertThat(alter("ALTER TABLE t ADD COLUMN a INT, TRUNCATE PARTITION p0")).startsWith("unread: 'TRUNCATE");
        assertThat(alter("ALTER TABLE t DROP PARTITION p0")).startsWith("unread: 'DROP PARTITION");
        assertThat(alter("ALTER TABLE t ADD SYSTEM VERSIONING")).startsWith("unread: 'ADD SYSTEM");
        assertThat(alter("ALTER TABLE t ADD COLUMN (a INT")).startsWith("unread: the statement ends");
        assertThat(alter("DROP TABLE t")).startsWith("unread: not an ALTER TABLE");
    }

    @Test
    void aCreateListsItsColumnsAndKeyOrIsUnread() {
        assertThat(create("CREATE TABLE IF NOT EXISTS db.t (id INT NOT NULL, v VARCHAR(10), PRIMARY KEY (id), "
                + "KEY k (v), CONSTRAINT c CHECK (id > 0)) ENGINE=InnoDB PARTITION BY HASH (id)"))
                .isEqualTo("[ADD id int NOT NULL, ADD v varchar(10), ADD PRIMARY KEY [id]]");
        assertThat(create("CREATE OR REPLACE TABLE t (id BIGINT UNSIGNED PRIMARY KEY)"))
                .isEqualTo("[ADD id bigint unsigned PRIMARY KEY]");
        assertThat(create("CREATE TABLE t LIKE u")).startsWith("unread: the statement does not list");
        assertThat(create("CREATE TABLE t (id INT) SELECT 1 AS id")).startsWith("unread: the table's rows");
        assertThat(create("CREATE TABLE t (id INT) AS SELECT 1 AS id")).startsWith("unread: the table's rows");
    }
}
