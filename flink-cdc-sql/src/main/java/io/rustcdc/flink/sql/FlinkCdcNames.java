package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Apache Flink CDC's names for what this project's options say, so that a table declared for Flink CDC's
 * {@code postgres-cdc}, {@code mysql-cdc} or {@code sqlserver-cdc} keeps these options where the meaning is
 * the same (docs/migrating-from-flink-cdc.md): read under our name, converted, or accepted with the one
 * value that means what this source does, and refused, with the reason, with any other.
 */
final class FlinkCdcNames {
    private FlinkCdcNames() {}

    static final ConfigOption<Boolean> INCREMENTAL_SNAPSHOT = ConfigOptions.key("scan.incremental.snapshot.enabled")
            .booleanType().noDefaultValue()
            .withDescription("Flink CDC's name; accepted as 'true' (this source always snapshots in chunks).");
    static final ConfigOption<Boolean> NEWLY_ADDED_TABLES = ConfigOptions.key("scan.newly-added-table.enabled")
            .booleanType().noDefaultValue()
            .withDescription("Flink CDC's name; accepted as 'true' (this source reads tables created later).");
    static final ConfigOption<Boolean> PARTITIONED_TABLES = ConfigOptions
            .key("scan.include-partitioned-tables.enabled").booleanType().noDefaultValue()
            .withDescription("Flink CDC's name; accepted as 'true' (a partitioned table is read through its root).");
    static final ConfigOption<String> DECODING_PLUGIN = ConfigOptions.key("decoding.plugin.name")
            .stringType().noDefaultValue()
            .withDescription("Flink CDC's name; accepted as 'pgoutput', the only plugin this source reads.");
    static final ConfigOption<String> PUBLICATION = ConfigOptions.key("debezium.publication.name")
            .stringType().noDefaultValue()
            .withDescription("Flink CDC's name for 'publication.name'.");
    static final ConfigOption<Integer> COMMIT_DELAY = ConfigOptions.key("scan.lsn-commit.checkpoints-num-delay")
            .intType().noDefaultValue()
            .withDescription("Flink CDC's name: 'checkpoints.retained-before-confirm' is this plus one.");

    static final ConfigOption<String> OFFSET_FILE = ConfigOptions.key("scan.startup.specific-offset.file")
            .stringType().noDefaultValue()
            .withDescription("Flink CDC's name: with '.pos', 'scan.startup.specific-offset' = '<file>:<pos>'.");
    static final ConfigOption<Long> OFFSET_POS = ConfigOptions.key("scan.startup.specific-offset.pos")
            .longType().noDefaultValue()
            .withDescription("Flink CDC's name: with '.file', 'scan.startup.specific-offset' = '<file>:<pos>'.");

    /** The names every connector's table takes. */
    static final Set<ConfigOption<?>> COMMON = Set.of(INCREMENTAL_SNAPSHOT);
    /** The names a MySQL or MariaDB table takes. */
    static final Set<ConfigOption<?>> MYSQL = Set.of(INCREMENTAL_SNAPSHOT, NEWLY_ADDED_TABLES, OFFSET_FILE, OFFSET_POS);
    /** The names a PostgreSQL table takes. */
    static final Set<ConfigOption<?>> POSTGRES = Set.of(INCREMENTAL_SNAPSHOT, NEWLY_ADDED_TABLES, PARTITIONED_TABLES,
            DECODING_PLUGIN, PUBLICATION, COMMIT_DELAY);

    /** {@code options} with Flink CDC's names read as ours; a value that means something else is refused. */
    static ReadableConfig apply(ReadableConfig options, String connector) {
        Configuration ours = Configuration.fromMap(options.toMap());
        only(ours, INCREMENTAL_SNAPSHOT, true, connector + " always snapshots in chunks, each handed to the stream "
                + "exactly, without locks (what Flink CDC's incremental snapshot does); for no snapshot at all use "
                + "'scan.startup.mode' = 'latest-offset'");
        only(ours, NEWLY_ADDED_TABLES, true, connector + " reads the tables created later that match its table "
                + "patterns, snapshot first (docs/sql.md)");
        only(ours, PARTITIONED_TABLES, true, connector + " reads a partitioned table as one table through its root");
        only(ours, DECODING_PLUGIN, "pgoutput", connector + " decodes pgoutput only");
        rename(ours, PUBLICATION, "publication.name", ours.get(PUBLICATION));
        Integer delay = ours.get(COMMIT_DELAY);
        if (delay != null) {
            if (delay < 0) {
                throw refused(COMMIT_DELAY, delay, "a number of checkpoints is 0 or more");
            }
            rename(ours, COMMIT_DELAY, CdcSourceOptions.CHECKPOINTS_RETAINED.key(), Integer.toString(delay + 1));
        }
        binlogOffset(ours);
        return ours;
    }

    /** Flink CDC's binlog file and offset, in two options, as our one position text {@code <file>:<pos>}. */
    private static void binlogOffset(Configuration options) {
        String file = options.get(OFFSET_FILE);
        Long pos = options.get(OFFSET_POS);
        if (file == null && pos == null) {
            return;
        }
        if (file == null || pos == null || file.isBlank() || pos < 0) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Options '" + OFFSET_FILE.key() + "' and '"
                    + OFFSET_POS.key() + "' (Flink CDC's names) go together: a binlog file name and an offset of 0 or "
                    + "more (given: " + (file == null ? "no file" : "'" + file + "'") + ", " + (pos == null ? "no offset"
                    : "offset " + pos) + "). Set both, or set 'scan.startup.specific-offset' = '<file>:<offset>'.");
        }
        String mode = options.get(CdcSourceOptions.STARTUP_MODE);
        if (!"specific-offset".equals(mode)) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Options '" + OFFSET_FILE.key() + "' and '"
                    + OFFSET_POS.key() + "' (Flink CDC's names) say where to start only with '"
                    + CdcSourceOptions.STARTUP_MODE.key() + "' = 'specific-offset', not '" + mode + "'.");
        }
        rename(options, OFFSET_FILE, CdcSourceOptions.STARTUP_POSITION.key(), file + ":" + pos);
    }

    /**
     * {@code options} with each bare column of {@code scan.incremental.snapshot.chunk.key-column} (Flink
     * CDC's form, as the SQL table reads one table) given the table's name: {@code table}, or null when
     * the SQL table reads the tables of a pattern, where a bare column is refused (name each table).
     */
    static ReadableConfig qualifyChunkKeyColumns(ReadableConfig options, @Nullable TableId table, Object sources) {
        List<String> entries = options.getOptional(CdcSourceOptions.CHUNK_KEY_COLUMNS).orElse(List.of());
        if (entries.stream().allMatch(e -> e.contains(":"))) {
            return options;
        }
        if (table == null) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + CdcSourceOptions.CHUNK_KEY_COLUMNS.key()
                    + "' names a column without its table (" + entries + "), but the table declared for '" + sources
                    + "' reads every table the pattern matches: write each as 'schema.table:column' (MySQL/MariaDB "
                    + "'database.table:column').");
        }
        List<String> qualified = new ArrayList<>();
        for (String e : entries) {
            qualified.add(e.contains(":") ? e : table.qualifiedName() + ":" + e);
        }
        Configuration copy = Configuration.fromMap(options.toMap());
        copy.set(CdcSourceOptions.CHUNK_KEY_COLUMNS, qualified);
        return copy;
    }

    private static <T> void only(Configuration options, ConfigOption<T> option, T value, String why) {
        T set = options.get(option);
        if (set != null && !set.equals(value)) {
            throw refused(option, set, why + ". Remove the option or set it to '" + value + "'");
        }
    }

    /** Sets {@code ours} to {@code value} when {@code theirs} is set; both set must agree. */
    private static void rename(Configuration options, ConfigOption<?> theirs, String ours, String value) {
        if (options.getOptional(theirs).isEmpty()) {
            return;
        }
        Map<String, String> all = options.toMap();
        if (all.containsKey(ours) && !Objects.equals(all.get(ours), value)) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Options '" + theirs.key() + "' (Flink CDC's name) "
                    + "and '" + ours + "' disagree ('" + all.get(theirs.key()) + "' means '" + ours + "' = '" + value
                    + "', but '" + ours + "' is '" + all.get(ours) + "'): keep '" + ours + "' only");
        }
        options.setString(ours, value);
    }

    private static CdcException refused(ConfigOption<?> option, Object value, String why) {
        return new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + option.key() + "' (Flink CDC's name) is '"
                + value + "': " + why + ".");
    }
}
