package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.control.ControlDirectory;
import io.rustcdc.flink.source.control.ControlRequest;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker-thread half of the snapshot control: reads the request files not answered yet and
 * resolves the tables of each snapshot request against the catalogue. Touches no enumerator state.
 * A request that cannot be read, names a table the catalogue lacks, or whose table fails its
 * prerequisites is answered with that reason; one the database could not be asked about now
 * (a connection failure) is left for the next poll.
 */
@Internal
final class ControlPoll {
    private static final Logger LOG = LoggerFactory.getLogger(ControlPoll.class);

    /** A request to apply, with its resolved tables, or the reason to reject it. */
    record Polled(String id, @Nullable ControlRequest request, List<TableDiscovery.Found> resolved,
            @Nullable String rejection) {}

    private ControlPoll() {}

    static List<Polled> poll(ControlDirectory directory, CatalogWorker<?, ?> worker, Set<String> answered,
            Set<TableId> captured) {
        List<ControlDirectory.Pending> pending;
        try {
            pending = directory.pendingRequests(answered);
        } catch (RuntimeException e) {
            LOG.warn("Could not read the snapshot control requests in {}; trying again at the next poll", directory, e);
            return List.of();
        }
        List<Polled> polled = new ArrayList<>();
        for (ControlDirectory.Pending p : pending) {
            if (p.request() == null) {
                polled.add(new Polled(p.id(), null, List.of(), p.error()));
            } else if (p.request().operation() != ControlRequest.Operation.REQUEST) {
                polled.add(new Polled(p.id(), p.request(), List.of(), null));
            } else {
                try {
                    polled.add(new Polled(p.id(), p.request(), worker.resolve(p.request().tables(), captured,
                            p.request().rowFilters(), p.id()), null));
                } catch (CdcException e) {
                    if (e.kind() == CdcException.Kind.CONFIGURATION || e.kind() == CdcException.Kind.PREREQUISITE) {
                        polled.add(new Polled(p.id(), p.request(), List.of(), e.getMessage()));
                    } else {
                        LOG.warn("Could not resolve the tables of snapshot control request {}; trying again at the "
                                + "next poll", p.id(), e);
                    }
                } catch (RuntimeException e) {
                    LOG.warn("Could not resolve the tables of snapshot control request {}; trying again at the next "
                            + "poll", p.id(), e);
                }
            }
        }
        return polled;
    }
}
