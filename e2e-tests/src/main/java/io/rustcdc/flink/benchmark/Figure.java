package io.rustcdc.flink.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** One row of the report: the runs' values of each side and of the limit, summarized as median (min–max). */
final class Figure {
    final String name;
    final String unit;
    final List<Double> ours = new ArrayList<>();
    final List<Double> peer = new ArrayList<>();
    final List<Double> limit = new ArrayList<>();
    /** Why the peer's run failed, when it did: shown as the peer's figure instead of a number. */
    String peerFailure;

    Figure(String name, String unit) {
        this.name = name;
        this.unit = unit;
    }

    List<Double> of(String side) {
        return SideRunner.OURS.equals(side) ? ours : peer;
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static String cell(List<Double> values) {
        if (values.isEmpty()) {
            return "n/a";
        }
        String median = number(median(values));
        if (values.size() == 1) {
            return median;
        }
        return median + " (" + number(values.stream().min(Double::compare).get()) + "–"
                + number(values.stream().max(Double::compare).get()) + ")";
    }

    static String ratio(List<Double> a, List<Double> b) {
        if (a.isEmpty() || b.isEmpty() || median(b) == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f", median(a) / median(b));
    }

    private static String number(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    String markdownRow() {
        String peerCell = peerFailure == null ? cell(peer) : "peer fails: " + peerFailure.replace('|', '/');
        return "| " + name + " (" + unit + ") | " + cell(ours) + " | " + peerCell + " | " + cell(limit) + " | "
                + (peerFailure == null ? ratio(ours, peer) : "n/a") + " | " + ratio(ours, limit) + " |";
    }

    String json() {
        return "{\"name\":\"" + name + "\",\"unit\":\"" + unit + "\",\"ours\":" + ours + ",\"peer\":" + peer
                + (peerFailure == null ? "" : ",\"peer_failure\":\"" + peerFailure.replace("\\", "\\\\")
                        .replace("\"", "\\\"") + "\"")
                + ",\"limit\":" + limit + "}";
    }
}
