package io.rustcdc.flink.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The samples of one job in a scrape of Flink's Prometheus reporters ({@link FlinkCluster#prometheusMetrics}),
 * by metric name: what an alert rule would read.
 */
final class PrometheusScrape {
    private static final Pattern SAMPLE = Pattern.compile("(?m)^(\\w+)\\{([^}]*)\\} (\\S+)$");

    private final String text;
    private final String job;

    private PrometheusScrape(String text, String job) {
        this.text = text;
        this.job = job;
    }

    /** What the cluster's reporters export now, for job {@code job}. */
    static PrometheusScrape of(FlinkCluster cluster, String job) {
        return new PrometheusScrape(cluster.prometheusMetrics(), job);
    }

    /** The values of metric {@code name} in the job's samples (one per subtask or operator); empty when there is none. */
    List<Double> values(String name) {
        List<Double> values = new ArrayList<>();
        Matcher m = SAMPLE.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(name) && m.group(2).contains("job_id=\"" + job + "\"")) {
                values.add(Double.valueOf(m.group(3)));
            }
        }
        return values;
    }

    /** The largest value of {@code name} in the job's samples, or NaN when there is none. */
    double max(String name) {
        return values(name).stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** The job's metric names that contain {@code part}, for a failure's message. */
    List<String> namesContaining(String part) {
        List<String> names = new ArrayList<>();
        Matcher m = SAMPLE.matcher(text);
        while (m.find()) {
            if (m.group(1).contains(part) && m.group(2).contains("job_id=\"" + job + "\"") && !names.contains(m.group(1))) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}
