package io.rustcdc.flink.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test class a fresh database of type {@code D} on the JVM's shared server, as a
 * parameter of any test, lifecycle method or constructor; the database is dropped after the class.
 */
public abstract class FreshDatabaseExtension<D> implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private final Class<D> type;
    private final ExtensionContext.Namespace namespace;

    protected FreshDatabaseExtension(Class<D> type) {
        this.type = type;
        this.namespace = ExtensionContext.Namespace.create(getClass());
    }

    /** Creates an empty database whose name says which test class it serves. */
    protected abstract D create(String hint);

    protected abstract void drop(D database);

    @Override
    public void beforeAll(ExtensionContext context) {
        database(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        D db = context.getStore(namespace).remove("database", type);
        if (db != null) {
            drop(db);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == type;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return database(context);
    }

    private D database(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        String hint = classContext.getRequiredTestClass().getSimpleName();
        return classContext.getStore(namespace).getOrComputeIfAbsent("database", k -> create(hint), type);
    }
}
