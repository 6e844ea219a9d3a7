package io.rustcdc.flink.source.json;

import org.apache.flink.annotation.PublicEvolving;

/**
 * How native JSON writes 64-bit integers (bigint, BIGINT UNSIGNED), which many JSON readers
 * cannot hold exactly as numbers.
 */
@PublicEvolving
public enum WideIntegers {
    /** An exact decimal string, {@code "9007199254740993"}: the default. */
    STRING,
    /** A JSON number, for readers known to parse 64-bit integers exactly. */
    NUMBER
}
