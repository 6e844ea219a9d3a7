package io.rustcdc.flink.source;

/**
 * A copy of a driver's exception whose message held a secret: the message masked, the class named
 * in it, the stack trace and causes kept (causes masked the same way).
 */
final class RedactedException extends Exception {
    private static final long serialVersionUID = 1L;

    private RedactedException(String message, Throwable cause) {
        super(message, cause, false, true);
    }

    /** {@code error} itself when no message in its chain holds {@code secret}, else a masked copy. */
    static Throwable of(Throwable error, Secret secret) {
        if (error == null || !holds(error, secret)) {
            return error;
        }
        RedactedException copy = new RedactedException(error.getClass().getName() + ": "
                + secret.redact(String.valueOf(error.getMessage())), of(error.getCause(), secret));
        copy.setStackTrace(error.getStackTrace());
        return copy;
    }

    private static boolean holds(Throwable error, Secret secret) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && !secret.reveal().isEmpty() && message.contains(secret.reveal())) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
