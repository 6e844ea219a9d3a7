package io.rustcdc.flink.postgres;

import javax.annotation.Nullable;

/**
 * What a snapshot chunk was read from, as the source compares it across a table's chunks: the relation (a table
 * dropped and created again under its name has another) and the order its key was read in ({@link PgChunkKey}); an
 * order a mark of state version 2 did not keep matches any.
 */
record PgChunkOrigin(long relationId, @Nullable String keyOrder) {

    @Override
    public boolean equals(Object o) {
        return o instanceof PgChunkOrigin other && relationId == other.relationId
                && (keyOrder == null || other.keyOrder == null || keyOrder.equals(other.keyOrder));
    }

    @Override
    public int hashCode() {
        return Long.hashCode(relationId);
    }

    @Override
    public String toString() {
        return "relation id " + relationId + (keyOrder == null ? "" : " with key " + keyOrder);
    }
}
