package io.rustcdc.flink.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * The lines one logger of this JVM logs while open, at the level the tests' log4j2 setup gives it (INFO for
 * the project's loggers): for a test that the code logged a decision or a warning.
 */
public final class LoggerLines implements AutoCloseable {
    private final String logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final AbstractAppender appender;

    public LoggerLines(String logger) {
        this.logger = logger;
        this.appender = new AbstractAppender("lines-of-" + logger, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        ((Logger) context.getLogger(logger)).addAppender(appender);
    }

    /** The lines so far that contain {@code text}. */
    public List<String> containing(String text) {
        return lines.stream().filter(l -> l.contains(text)).toList();
    }

    @Override
    public void close() {
        ((Logger) context.getLogger(logger)).removeAppender(appender);
        appender.stop();
    }
}
