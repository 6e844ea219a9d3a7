package io.rustcdc.benchmark;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} arguments of a benchmark run, the same for both sides. */
public final class BenchmarkArgs {
    private final Map<String, String> values = new HashMap<>();

    public BenchmarkArgs(String[] args) {
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("Arguments are --name value pairs; found " + args[i]);
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
    }

    public String get(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("Missing argument --" + name);
        }
        return value;
    }

    public int getInt(String name) {
        return Integer.parseInt(get(name));
    }

    public long getLong(String name) {
        return Long.parseLong(get(name));
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://" + get("host") + ":" + get("port") + "/" + get("database") + "?sslmode=disable";
    }
}
