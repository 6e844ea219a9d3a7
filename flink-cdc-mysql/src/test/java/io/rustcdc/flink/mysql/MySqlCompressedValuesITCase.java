package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.testing.CompressedBinlog;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link MySqlValuesITCase} with the server's binlog compression on (Oracle MySQL's compressed
 * transactions, MariaDB's compressed events): random JSON documents, temporal, BIT and YEAR values
 * are equal from the snapshot and from the compressed binlog. Seeds are printed as there; replay
 * with {@code -Drustcdc.values.seed=<seed>}.
 */
@ExtendWith(CompressedBinlog.class)
class MySqlCompressedValuesITCase extends MySqlValuesITCase {}
