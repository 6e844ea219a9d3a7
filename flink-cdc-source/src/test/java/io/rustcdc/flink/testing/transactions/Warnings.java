package io.rustcdc.flink.testing.transactions;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/** The warnings the reader's transaction cut logs while open (its logger is at INFO in the tests' log4j2 setup). */
final class Warnings implements AutoCloseable {
    private static final String LOGGER = "io.rustcdc.flink.source.reader.TransactionCut";
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final AbstractAppender appender = new AbstractAppender("transaction-cut", null, null, true,
            Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent event) {
            lines.add(event.getMessage().getFormattedMessage());
        }
    };

    Warnings() {
        appender.start();
        ((Logger) context.getLogger(LOGGER)).addAppender(appender);
    }

    List<String> containing(String text) {
        return lines.stream().filter(l -> l.contains(text)).toList();
    }

    @Override
    public void close() {
        ((Logger) context.getLogger(LOGGER)).removeAppender(appender);
        appender.stop();
    }
}
