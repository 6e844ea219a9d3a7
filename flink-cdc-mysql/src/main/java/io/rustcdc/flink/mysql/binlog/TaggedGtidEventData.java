package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.EventData;
import org.apache.flink.annotation.Internal;

/**
 * A tagged GTID event's GTID (MySQL 8.3+, {@code GTID_TAGGED_LOG_EVENT}), which starts a transaction
 * as an untagged GTID event does; read by {@link TaggedGtids}, given the event type {@code GTID}.
 */
@Internal
public final class TaggedGtidEventData implements EventData {
    private static final long serialVersionUID = 1L;

    private final String uuid;
    private final String tag;
    private final long transaction;

    TaggedGtidEventData(String uuid, String tag, long transaction) {
        this.uuid = uuid;
        this.tag = tag;
        this.transaction = transaction;
    }

    /** The GTID as MySQL writes it: {@code uuid:tag:n}, the tag in lower case. */
    public String gtid() {
        return uuid + ":" + tag + ":" + transaction;
    }

    @Override
    public String toString() {
        return "TaggedGtidEventData{" + gtid() + "}";
    }
}
