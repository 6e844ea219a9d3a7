package io.rustcdc.flink.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Every log line of this JVM while open, at DEBUG and above for every logger (Flink's and a driver's
 * that logs through SLF4J included), and a java.util.logging logger's output at FINEST (PgJDBC's,
 * the binlog client's), each with its stack trace rendered: for tests that a secret appears in none
 * of them. Restores the levels when closed.
 */
public final class CapturedLogs implements AutoCloseable {
    private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final Map<String, Level> levels = new HashMap<>();
    private final AbstractAppender appender;
    private final java.util.logging.Logger driverLogger;
    private final java.util.logging.Level driverLevel;
    private final Handler driverHandler;

    private CapturedLogs(String julLogger) {
        this.driverLogger = java.util.logging.Logger.getLogger(julLogger);
        this.driverLevel = driverLogger.getLevel();
        appender = new AbstractAppender("captured", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLoggerName() + " " + event.getLevel() + " "
                        + event.getMessage().getFormattedMessage() + trace(event.getThrown()));
            }
        };
        appender.start();
        Configuration config = context.getConfiguration();
        config.addAppender(appender);
        for (LoggerConfig logger : config.getLoggers().values()) {
            levels.put(logger.getName(), logger.getLevel());
            logger.setLevel(Level.DEBUG);
        }
        config.getRootLogger().addAppender(appender, Level.DEBUG, null);
        context.updateLoggers();
        driverHandler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String message = record.getMessage();
                if (record.getParameters() != null) {
                    message = message + " " + java.util.Arrays.toString(record.getParameters());
                }
                lines.add(record.getLoggerName() + " " + record.getLevel() + " " + message + trace(record.getThrown()));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        driverHandler.setLevel(java.util.logging.Level.ALL);
        driverLogger.addHandler(driverHandler);
        driverLogger.setLevel(java.util.logging.Level.FINEST);
    }

    /** Captures from now on; {@code julLogger} names the java.util.logging logger to take at FINEST ("" for all). */
    public static CapturedLogs start(String julLogger) {
        return new CapturedLogs(julLogger);
    }

    public List<String> lines() {
        return new ArrayList<>(lines);
    }

    /** The lines that contain {@code text}. */
    public List<String> containing(String text) {
        List<String> found = new ArrayList<>();
        for (String line : lines) {
            if (line.contains(text)) {
                found.add(line);
            }
        }
        return found;
    }

    private static String trace(Throwable thrown) {
        if (thrown == null) {
            return "";
        }
        StringWriter out = new StringWriter();
        thrown.printStackTrace(new PrintWriter(out));
        return "\n" + out;
    }

    @Override
    public void close() {
        driverLogger.removeHandler(driverHandler);
        driverLogger.setLevel(driverLevel);
        Configuration config = context.getConfiguration();
        config.getRootLogger().removeAppender(appender.getName());
        for (LoggerConfig logger : config.getLoggers().values()) {
            Level level = levels.get(logger.getName());
            if (level != null) {
                logger.setLevel(level);
            }
        }
        context.updateLoggers();
        appender.stop();
    }
}
