package io.rustcdc.flink.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What the sink behind a {@link CdcSource} keeps of an attempt that failed, which decides what the
 * snapshot-to-stream handoff may leave out after a restore ({@code scan.handoff.sink-guarantee}).
 *
 * <p>A chunk read and emitted by an attempt that then failed is read again after the restore, in a
 * newer snapshot. The exact handoff then leaves out the changes the new read already shows, among
 * them deletes of rows the first read emitted. A sink that committed nothing of the failed attempt
 * never saw those rows; a sink that kept them needs the deletes.
 */
@PublicEvolving
public enum SinkGuarantee {
    /**
     * The sink keeps only what a completed checkpoint holds (two-phase commit, Flink's collect sink,
     * a transactional Kafka producer): the changelog is exact, with no duplicate and no change of a
     * row never emitted. The default.
     */
    EXACTLY_ONCE("exactly-once"),
    /**
     * The sink may keep what a failed attempt wrote (a JDBC or Elasticsearch upsert sink, an
     * at-least-once Kafka producer into a compacted topic): for every chunk read again after a
     * restore, and every table whose snapshot was under way while the stream ran, every change to
     * its keys from the stream's start is delivered, even those the new read already shows. An upsert
     * by key then ends at the table's content; on the way it may see a row twice, an older value for
     * a moment, and a delete of a row it never saw.
     */
    AT_LEAST_ONCE("at-least-once");

    private final String text;

    SinkGuarantee(String text) {
        this.text = text;
    }

    /** The option's value, {@code exactly-once} or {@code at-least-once}; Flink parses enum options by it. */
    @Override
    public String toString() {
        return text;
    }
}
