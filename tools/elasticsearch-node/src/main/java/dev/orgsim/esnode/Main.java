package dev.orgsim.esnode;

import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.http.HttpServerTransport;
import org.elasticsearch.node.ClasspathNode;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.transport.netty4.Netty4Plugin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts one Elasticsearch node in this JVM, for development and CI.
 *
 * <pre>java -Xms1g -Xmx1g -cp 'target/orgsim-es-node.jar:target/lib/*' dev.orgsim.esnode.Main BASE_DIR [HTTP_PORT]</pre>
 *
 * BASE_DIR gets home/ (with config/), data/ and logs/. HTTP_PORT defaults to $ES_PORT, then 9200.
 * A single node unless $ES_SEED_HOSTS is set: then it joins a local cluster, on transport port
 * $ES_TRANSPORT_PORT, finding the others at $ES_SEED_HOSTS (host:port,...) and, the first time,
 * electing a master among $ES_INITIAL_MASTER_NODES (node names, orgsim-dev-HTTP_PORT).
 * We do not use the real bootstrap ({@code org.elasticsearch.bootstrap.Elasticsearch}): it expects
 * the CLI launcher on stdin, refuses root and installs the security manager / entitlements.
 */
public final class Main {

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args.length > 0 ? args[0] : ".orgsim/elasticsearch").toAbsolutePath().normalize();
        String portArg = args.length > 1 ? args[1] : System.getenv().getOrDefault("ES_PORT", "9200");
        int httpPort = Integer.parseInt(portArg.trim());

        Path home = base.resolve("home");
        Path config = home.resolve("config");
        Path data = base.resolve("data");
        Path logs = base.resolve("logs");
        for (Path dir : List.of(config, data, logs)) {
            Files.createDirectories(dir);
        }

        // Must happen before any log4j class initialises: our own config, file under BASE_DIR/logs.
        System.setProperty("orgsim.es.logs", logs.toString());
        if (System.getProperty("log4j2.configurationFile") == null) {
            System.setProperty("log4j2.configurationFile", "classpath:orgsim-es-log4j2.properties");
        }
        // Our shutdown hook logs while the node closes; log4j's own hook would stop logging first.
        System.setProperty("log4j2.shutdownHookEnabled", "false");
        // Plugs the server's logging facade (org.elasticsearch.logging) into log4j.
        LogConfigurator.configureESLogging();

        Settings.Builder builder = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", data.toString())
            .put("path.logs", logs.toString())
            .put("cluster.name", "orgsim-dev")
            .put("node.name", "orgsim-dev-" + httpPort)
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort)
            // The real-memory breaker assumes the distribution's GC settings; trip on totals only.
            .put("indices.breaker.total.use_real_memory", false)
            // Dev disks are often >90% full; never go read-only because of a watermark.
            .put("cluster.routing.allocation.disk.threshold_enabled", false);
        String seeds = System.getenv("ES_SEED_HOSTS");
        if (seeds == null || seeds.isBlank()) {
            builder.put("transport.port", 0) // any free port: single-node discovery never dials it
                .put("discovery.type", "single-node");
        } else {
            builder.put("transport.port", Integer.parseInt(System.getenv("ES_TRANSPORT_PORT").trim()))
                .putList("discovery.seed_hosts", List.of(seeds.split(",")))
                .putList("cluster.initial_master_nodes", List.of(System.getenv("ES_INITIAL_MASTER_NODES").split(",")));
        }
        Settings settings = builder.build();

        var environment = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), config, () -> "orgsim-dev-" + httpPort);
        Node node = new ClasspathNode(environment, Map.of("transport-netty4", Netty4Plugin.class));

        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.prepareForClose();
                node.close();
                node.awaitClose(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                closed.countDown();
            }
        }, "orgsim-es-shutdown"));

        node.start();
        var http = node.injector().getInstance(HttpServerTransport.class).boundAddress().publishAddress();
        System.out.println("orgsim-es-node: started, http://" + http.getAddress() + ":" + http.getPort()
            + " (pid " + ProcessHandle.current().pid() + ", data " + data + ")");
        System.out.flush();

        // The server's threads are daemons: returning from main would end the JVM.
        closed.await();
    }
}
