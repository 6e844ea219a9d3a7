package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WrittenTypesTest {

    @Test
    void aWrittenTypeMatchesTheCatalogueOnlyByTheServersOwnRules() {
        assertThat(WrittenTypes.same("int", "int(11)")).isTrue();
        assertThat(WrittenTypes.same("int unsigned", "int(10) unsigned")).isTrue();
        assertThat(WrittenTypes.same("int(11)", "int")).isTrue();
        assertThat(WrittenTypes.same("integer", "int")).isTrue();
        assertThat(WrittenTypes.same("bigint", "bigint(20)")).isTrue();
        assertThat(WrittenTypes.same("bool", "tinyint(1)")).isTrue();
        assertThat(WrittenTypes.same("numeric", "decimal(10,0)")).isTrue();
        assertThat(WrittenTypes.same("decimal(12)", "decimal(12,0)")).isTrue();
        assertThat(WrittenTypes.same("char", "char(1)")).isTrue();
        assertThat(WrittenTypes.same("varchar(64)", "varchar(64)")).isTrue();
        assertThat(WrittenTypes.same("enum('a','B')", "enum('a','B')")).isTrue();
        assertThat(WrittenTypes.same("vector", "vector(2048)")).isTrue(); // Oracle MySQL 9's default dimension
        assertThat(WrittenTypes.same("vector(3)", "vector(3)")).isTrue();
        // another width, length, case of a value or type is not the same
        assertThat(WrittenTypes.same("int", "int(5)")).isFalse();
        assertThat(WrittenTypes.same("varchar(64)", "varchar(128)")).isFalse();
        assertThat(WrittenTypes.same("enum('a','b')", "enum('a','B')")).isFalse();
        assertThat(WrittenTypes.same("int", "bigint")).isFalse();
        assertThat(WrittenTypes.same("int unsigned", "int(11)")).isFalse();
        assertThat(WrittenTypes.same("json", "longtext")).isFalse();
        assertThat(WrittenTypes.same("vector", "vector(3)")).isFalse();
    }
}
