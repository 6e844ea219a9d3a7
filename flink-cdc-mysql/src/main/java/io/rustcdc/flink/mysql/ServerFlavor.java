package io.rustcdc.flink.mysql;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Which server a source reads: Oracle MySQL or MariaDB. They share the binlog protocol but not
 * their GTIDs ({@code uuid:interval} sets against {@code domain-server-seq}), so a position of one
 * is never given to the other: the flavor is part of the source's identity and is checked against
 * the server.
 */
@PublicEvolving
public enum ServerFlavor {
    MYSQL("rustcdc-mysql", "mysql"),
    MARIADB("rustcdc-mariadb", "mariadb");

    private final String connectorName;
    private final String sourceName;

    ServerFlavor(String connectorName, String sourceName) {
        this.connectorName = connectorName;
        this.sourceName = sourceName;
    }

    /** The Flink SQL connector identifier for this flavor. */
    public String connectorName() {
        return connectorName;
    }

    /** The connector's identity in events ({@code source.connector}): {@code mysql} or {@code mariadb}. */
    public String sourceName() {
        return sourceName;
    }

    /** The flavor of a server from its {@code @@version} text. */
    static ServerFlavor ofVersion(String version) {
        return version.toLowerCase(java.util.Locale.ROOT).contains("mariadb") ? MARIADB : MYSQL;
    }
}
