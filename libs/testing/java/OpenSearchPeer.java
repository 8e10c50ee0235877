/*
 * Tideway's test peer: one OpenSearch node in its own JVM, from OpenSearch's jars on Maven Central
 * (scripts/ensure-opensearch.sh compiles this file into the cache folder). Arguments: the node's
 * home folder, its HTTP port and its transport port; both listen on 127.0.0.1 only. A node of the
 * jars alone has the core mappings and analyzers and the netty4 transport, no other module.
 */
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

public class OpenSearchPeer {
  static final class PeerNode extends Node {
    PeerNode(Settings settings) {
      super(InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), null, () -> "tideway-peer"), List.of(Netty4Plugin.class), true);
    }
  }

  public static void main(String[] args) throws Exception {
    String home = args[0];
    Settings settings = Settings.builder()
        .put("path.home", home)
        .put("path.data", home + "/data")
        .put("path.logs", home + "/logs")
        .put("cluster.name", "tideway-peer")
        .put("node.name", "peer")
        .put("http.port", args[1])
        .put("transport.port", args[2])
        .put("network.host", "127.0.0.1")
        .put("discovery.type", "single-node")
        .put("http.type", "netty4")
        .put("transport.type", "netty4")
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .build();
    Node node = new PeerNode(settings);
    node.start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception e) {
        // exiting anyway
      }
    }));
    System.out.println("opensearch-peer started");
    Thread.currentThread().join();
  }
}
