package io.rustcdc.flink.benchmark;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/** The hottest top-of-stack frames of a JFR recording's execution samples, with their share of all samples. */
final class HotFrames {
    private HotFrames() {}

    static List<String> top(Path recording, int n) throws IOException {
        Map<String, Integer> counts = new HashMap<>();
        int total = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
            if (!"jdk.ExecutionSample".equals(e.getEventType().getName()) || e.getStackTrace() == null
                    || e.getStackTrace().getFrames().isEmpty()) {
                continue;
            }
            RecordedFrame frame = e.getStackTrace().getFrames().get(0);
            String name = frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
            counts.merge(name, 1, Integer::sum);
            total++;
        }
        int all = total;
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(n)
                .map(en -> String.format(java.util.Locale.ROOT, "%s (%.1f%%)", en.getKey(), 100.0 * en.getValue() / all))
                .collect(Collectors.toList());
    }
}
