package io.rustcdc.flink.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A final {@link CdcException} as the source hands it to Flink: Flink's failure handler looks for a
 * throwable of a class annotated as a {@link ThrowableType#NonRecoverableError} in the cause chain
 * and then fails the job at once, whatever the restart strategy. Without the mark a missing slot or
 * a malformed option would restart the job forever, failing the same way each time. The message is
 * the CdcException's, which stays in the chain as the cause.
 *
 * <p>Thrown by the reader (a task failure) and by the enumerator (a global failure, through the
 * coordinator); never by connectors, which throw {@link CdcException}.
 */
@Internal
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class FinalFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final CdcException.Kind kind;

    private FinalFailure(CdcException failure, Throwable thrown) {
        super(failure.getMessage(), thrown);
        this.kind = failure.kind();
    }

    /**
     * {@code thrown} marked as final when the first CdcException of its cause chain is final;
     * otherwise {@code thrown} itself (an Error as it is, a Throwable that is not an Exception wrapped).
     */
    public static Exception mark(Throwable thrown) {
        if (thrown instanceof FinalFailure) {
            return (FinalFailure) thrown;
        }
        for (Throwable t = thrown; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof CdcException) {
                CdcException failure = (CdcException) t;
                if (failure.isFinal()) {
                    return new FinalFailure(failure, thrown);
                }
                break;
            }
        }
        if (thrown instanceof Error) {
            throw (Error) thrown;
        }
        return thrown instanceof Exception ? (Exception) thrown : new RuntimeException(thrown);
    }

    /** Like {@link #mark}, for places that may throw only unchecked exceptions. */
    public static RuntimeException markUnchecked(Throwable thrown) {
        Exception marked = mark(thrown);
        return marked instanceof RuntimeException ? (RuntimeException) marked : new RuntimeException(marked);
    }

    public CdcException.Kind kind() {
        return kind;
    }

    @Override
    public String toString() {
        return "CdcException[" + kind + ", final: not restarted]: " + getMessage();
    }
}
