package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.testing.CompressedBinlog;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link MySqlTypesITCase} with the server's binlog compression on (Oracle MySQL's compressed
 * transactions, MariaDB's compressed events): the whole type table is equal from the snapshot and
 * from the compressed binlog.
 */
@ExtendWith(CompressedBinlog.class)
class MySqlCompressedTypesITCase extends MySqlTypesITCase {}
