package io.rustcdc.flink.testing;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;

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

    /**
     * Runs {@code body} once per seed of {@link #of}, with a {@link Random} of that seed, printing each seed first. A
     * failure is rethrown with the seed and the {@code -D} setting that replays it in front of its message.
     */
    public static void forEach(String seedProperty, String runsProperty, int defaultRuns, Consumer<Random> body) {
        for (long seed : of(seedProperty, runsProperty, defaultRuns)) {
            String replay = "seed " + seed + " (replay: -D" + seedProperty + "=" + seed + ")";
            System.out.println(replay);
            try {
                body.accept(new Random(seed));
            } catch (AssertionError e) {
                throw new AssertionError(replay + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                throw new RuntimeException(replay + ": " + e, e);
            }
        }
    }
}
