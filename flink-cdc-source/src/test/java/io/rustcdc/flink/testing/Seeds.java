package io.rustcdc.flink.testing;

import java.security.SecureRandom;
import java.util.Arrays;

/** The seeds of a randomized test's runs: those a system property names, else new ones. */
public final class Seeds {
    private Seeds() {}

    /**
     * The seeds of {@code seedProperty} ({@code N} or {@code N,M}), else {@code runsProperty} new seeds
     * (default {@code defaultRuns}), each short enough to type.
     */
    public static long[] of(String seedProperty, String runsProperty, int defaultRuns) {
        String fixed = System.getProperty(seedProperty, "");
        if (!fixed.isBlank()) {
            return Arrays.stream(fixed.split(",")).mapToLong(t -> Long.parseLong(t.trim())).toArray();
        }
        SecureRandom random = new SecureRandom();
        long[] seeds = new long[Integer.getInteger(runsProperty, defaultRuns)];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = random.nextLong() >>> 16;
        }
        return seeds;
    }
}
