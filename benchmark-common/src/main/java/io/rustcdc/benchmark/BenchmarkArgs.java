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

    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** Whether the run reads Oracle MySQL ({@code --connector mysql}) or MariaDB ({@code --connector mariadb}). */
    public boolean mysqlFamily() {
        return "mariadb".equals(values.get("connector")) || "mysql".equals(values.get("connector"));
    }

    public int getInt(String name) {
        return Integer.parseInt(get(name));
    }

    public long getLong(String name) {
        return Long.parseLong(get(name));
    }

    /** A JDBC URL of the run's database, for the driver this JVM has (MariaDB Connector/J or MySQL Connector/J). */
    public String jdbcUrl() {
        String at = get("host") + ":" + get("port") + "/" + get("database");
        if (!mysqlFamily()) {
            return "jdbc:postgresql://" + at + "?sslmode=disable";
        }
        try {
            Class.forName("org.mariadb.jdbc.Driver");
            // Oracle MySQL's caching_sha2_password without TLS needs the server's RSA key
            return "jdbc:mariadb://" + at + ("mysql".equals(values.get("connector")) ? "?allowPublicKeyRetrieval=true" : "");
        } catch (ClassNotFoundException e) {
            return "jdbc:mysql://" + at + "?useSSL=false&allowPublicKeyRetrieval=true";
        }
    }
}
