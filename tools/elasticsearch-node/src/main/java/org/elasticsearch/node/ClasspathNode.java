package org.elasticsearch.node;

import org.elasticsearch.bootstrap.BootstrapCheck;
import org.elasticsearch.bootstrap.BootstrapContext;
import org.elasticsearch.common.transport.BoundTransportAddress;
import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.ClasspathPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

import java.util.List;
import java.util.Map;

/**
 * A {@link Node} whose plugins come from the classpath (see {@link ClasspathPluginsService}).
 *
 * <p>In package {@code org.elasticsearch.node} because, in 8.19, the only hook for replacing the
 * plugins service is the package-private {@link NodeServiceProvider} handed to the
 * package-private {@link NodeConstruction#prepareConstruction}; the public
 * {@code Node(Environment, PluginsLoader)} constructor always scans directories.
 */
public class ClasspathNode extends Node {

    public ClasspathNode(Environment environment, Map<String, Class<? extends Plugin>> plugins) {
        super(NodeConstruction.prepareConstruction(
            environment,
            ClasspathPluginsService.emptyLoader(),
            new NodeServiceProvider() {
                @Override
                PluginsService newPluginService(Environment env, PluginsLoader ignored) {
                    return new ClasspathPluginsService(env.settings(), env.configDir(), plugins);
                }
            },
            true // forbidPrivateIndexSettings, as in a real node
        ));
    }

    /**
     * Bootstrap checks are only enforced when binding beyond loopback, which this dev node
     * never does; skipping them keeps start-up independent of ulimits and vm.max_map_count.
     */
    @Override
    protected void validateNodeBeforeAcceptingRequests(BootstrapContext context, BoundTransportAddress boundTransportAddress,
                                                       List<BootstrapCheck> checks) {
    }
}
