package org.elasticsearch.plugins;

import org.elasticsearch.action.admin.cluster.node.info.PluginsAndModules;
import org.elasticsearch.common.settings.Settings;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plugins service that instantiates plugin classes found on the JVM classpath instead of
 * scanning {@code modules/} and {@code plugins/} directories (which a node built from Maven
 * jars does not have).
 *
 * <p>Lives in {@code org.elasticsearch.plugins} because it needs package-private API of the
 * pinned server version (8.19): the {@link PluginsLoader} constructor, {@link LoadedPlugin}
 * and {@link PluginsService#loadPlugin}. Everything runs in the unnamed module, so sharing
 * the package with the server jar is allowed.
 */
public class ClasspathPluginsService extends PluginsService {

    private final List<LoadedPlugin> classpathPlugins;

    /** @param pluginClasses plugin name (as a distribution's module would be named) to class */
    public ClasspathPluginsService(Settings settings, Path configPath, Map<String, Class<? extends Plugin>> pluginClasses) {
        // The base class loads nothing: an empty loader has no module or plugin bundles.
        super(settings, configPath, emptyLoader());
        List<LoadedPlugin> loaded = new ArrayList<>();
        pluginClasses.forEach((name, pluginClass) -> {
            Plugin instance = loadPlugin(pluginClass, settings, configPath);
            loaded.add(new LoadedPlugin(descriptor(name, pluginClass), instance, pluginClass.getClassLoader()));
        });
        this.classpathPlugins = List.copyOf(loaded);
    }

    /** An empty loader; the package-private constructor skips the module-layer set-up. */
    public static PluginsLoader emptyLoader() {
        return new PluginsLoader(Set.of(), Set.of(), Map.of());
    }

    /** map/flatMap/filterPlugins/pluginMap all read this list. */
    @Override
    protected List<LoadedPlugin> plugins() {
        return classpathPlugins;
    }

    /** Lists the classpath plugins as modules in GET _nodes/plugins (the base reports none). */
    @Override
    public PluginsAndModules info() {
        return new PluginsAndModules(List.of(), classpathPlugins.stream().map(LoadedPlugin::descriptor).toList());
    }

    private static PluginDescriptor descriptor(String name, Class<? extends Plugin> pluginClass) {
        return new PluginDescriptor(
            name,
            "classpath plugin " + pluginClass.getName(),
            "NA",                                 // plugin version
            org.elasticsearch.Version.CURRENT.toString(),
            "17",                                 // java version
            pluginClass.getName(),                // classname
            null,                                 // module name: not modular
            List.of(),                            // extended plugins
            false, false, false, false            // native controller, licensed, modular, stable
        );
    }
}
