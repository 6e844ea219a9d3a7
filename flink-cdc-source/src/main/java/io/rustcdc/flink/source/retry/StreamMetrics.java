package io.rustcdc.flink.source.retry;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.CharacterFilter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The metric group a reopened stream registers its metrics in, again and again: a gauge is
 * registered in the real group once and reads whichever stream registered it last; a counter asked
 * for by name is the same counter each time, so its count goes on. A metric given as an object (a
 * counter, meter or histogram) is registered by the first stream only. Thread-safe.
 */
@Internal
final class StreamMetrics implements MetricGroup {
    private final MetricGroup group;
    private final Map<String, Gauge<?>> gauges = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, StreamMetrics> children = new ConcurrentHashMap<>();
    private final Set<String> others = ConcurrentHashMap.newKeySet();

    StreamMetrics(MetricGroup group) {
        this.group = group;
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
        if (gauges.put(name, gauge) == null) {
            group.gauge(name, (Gauge<Object>) () -> gauges.get(name).getValue());
        }
        return gauge;
    }

    @Override
    public Counter counter(String name) {
        return counters.computeIfAbsent(name, group::counter);
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
        if (counters.putIfAbsent(name, counter) == null) {
            group.counter(name, counter);
        }
        return counter;
    }

    @Override
    public <H extends Histogram> H histogram(String name, H histogram) {
        return others.add("histogram " + name) ? group.histogram(name, histogram) : histogram;
    }

    @Override
    public <M extends Meter> M meter(String name, M meter) {
        return others.add("meter " + name) ? group.meter(name, meter) : meter;
    }

    @Override
    public MetricGroup addGroup(String name) {
        return children.computeIfAbsent("name " + name, k -> new StreamMetrics(group.addGroup(name)));
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
        return children.computeIfAbsent("key " + key + " " + value, k -> new StreamMetrics(group.addGroup(key, value)));
    }

    @Override
    public String[] getScopeComponents() {
        return group.getScopeComponents();
    }

    @Override
    public Map<String, String> getAllVariables() {
        return group.getAllVariables();
    }

    @Override
    public String getMetricIdentifier(String metricName) {
        return group.getMetricIdentifier(metricName);
    }

    @Override
    public String getMetricIdentifier(String metricName, CharacterFilter filter) {
        return group.getMetricIdentifier(metricName, filter);
    }
}
