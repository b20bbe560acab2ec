package io.sluice.server.durability;

import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.ServerProcess;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes the data directory that {@link OldDataDirectoryIT} opens: a real {@code sluice server}
 * process, driven over the HTTP Open API, so that the directory holds what that version of the code
 * writes for every durable format: snapshot sections of all three replicated states (written on a
 * clean stop), commands in the Raft log after that snapshot (left by a SIGKILL, so they are
 * replayed at the next start), and config history segments.
 *
 * <p>Run it with the code of the version whose format is to be kept, and commit the directory under
 * {@code src/test/resources/data-directories/<name>}:
 *
 * <pre>
 * mvn -B -ntp -pl sluice-server -am test-compile -DskipTests
 * java -cp "$(cat sluice-server/target/test-classpath)" \
 *     io.sluice.server.durability.DataDirectoryFixtureWriter /tmp/fixture
 * </pre>
 *
 * (the class path is the test class path, e.g. from {@code mvn dependency:build-classpath
 * -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath} plus {@code target/classes} and
 * {@code target/test-classes}). The writes are exactly those {@link OldDataDirectoryIT} checks.
 */
public final class DataDirectoryFixtureWriter {
  private DataDirectoryFixtureWriter() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: DataDirectoryFixtureWriter <empty target directory>");
      System.exit(2);
    }
    Path dataDir = Path.of(args[0]);
    Files.createDirectories(dataDir);
    try (var files = Files.list(dataDir)) {
      if (files.findAny().isPresent()) {
        throw new IllegalArgumentException(dataDir + " is not empty");
      }
    }
    ServerProcess first = ServerProcess.startOnFreePorts(dataDir, List.of(), Map.of());
    int port = first.httpPort();
    try {
      beforeTheSnapshot(new OpenApiClient("http://127.0.0.1:" + port));
    } finally {
      // SIGTERM: the shutdown hook closes the store, which writes the snapshot.
      first.close();
    }
    ServerProcess second = ServerProcess.start(port, dataDir);
    try {
      afterTheSnapshot(new OpenApiClient("http://127.0.0.1:" + port));
    } finally {
      // SIGKILL: no snapshot, so these writes stay in the log only, to be replayed.
      second.kill();
    }
    System.out.println("wrote " + dataDir.toAbsolutePath());
  }

  /** The writes that end up in the snapshot (and in history on disk). */
  static void beforeTheSnapshot(OpenApiClient api) throws Exception {
    String namespaces = "/nacos/v1/console/namespaces";
    ok(
        api.post(
            namespaces,
            OpenApiClient.params(
                "customNamespaceId", "fixture-ns",
                "namespaceName", "Fixture",
                "namespaceDesc", "written by format 1")));
    ok(
        api.post(
            namespaces,
            OpenApiClient.params("customNamespaceId", "gone-ns", "namespaceName", "Gone")));
    ok(api.delete(namespaces, OpenApiClient.params("namespaceId", "gone-ns")));
    ok(
        api.post(
            namespaces,
            OpenApiClient.params("customNamespaceId", "renamed-ns", "namespaceName", "Before")));
    ok(
        api.put(
            namespaces,
            OpenApiClient.params(
                "namespace", "renamed-ns",
                "namespaceShowName", "After",
                "namespaceDesc", "renamed")));

    String configs = "/nacos/v1/cs/configs";
    ok(
        api.post(
            configs,
            OpenApiClient.params(
                "dataId", "app.properties",
                "group", "DEFAULT_GROUP",
                "content", "a=1",
                "type", "properties",
                "appName", "fixture-app",
                "desc", "the first config",
                "config_tags", "t1,t2",
                "src_user", "alice")));
    ok(
        api.post(
            configs,
            OpenApiClient.params(
                "dataId", "app.properties",
                "group", "DEFAULT_GROUP",
                "content", "a=2",
                "type", "properties",
                "appName", "fixture-app",
                "desc", "the first config",
                "config_tags", "t1,t2",
                "src_user", "bob")));
    ok(
        api.post(
            configs,
            OpenApiClient.params(
                "dataId", "ns.yaml",
                "group", "G",
                "tenant", "fixture-ns",
                "content", "k: v\n",
                "type", "yaml")));
    ok(
        api.post(
            configs,
            OpenApiClient.params("dataId", "beta.txt", "group", "G", "content", "formal")));
    ok(
        api.post(
            configs,
            OpenApiClient.params("dataId", "beta.txt", "group", "G", "content", "beta"),
            "betaIps",
            "10.0.0.1,10.0.0.2"));
    ok(
        api.post(
            configs,
            OpenApiClient.params("dataId", "tagged.txt", "group", "G", "content", "untagged")));
    ok(
        api.post(
            configs,
            OpenApiClient.params(
                "dataId", "tagged.txt", "group", "G", "content", "canary", "tag", "canary")));
    ok(
        api.post(
            configs,
            OpenApiClient.params("dataId", "removed.txt", "group", "G", "content", "soon gone")));
    ok(api.delete(configs, OpenApiClient.params("dataId", "removed.txt", "group", "G")));
    ok(
        api.post(
            configs,
            OpenApiClient.params(
                "dataId",
                "unicode.txt",
                "group",
                "G",
                "content",
                "h\u00e9llo \u2713 \ud83d\ude80")));

    String services = "/nacos/v1/ns/service";
    ok(
        api.post(
            services,
            OpenApiClient.params(
                "serviceName", "fixture-svc",
                "groupName", "G",
                "protectThreshold", "0.5",
                "metadata", "{\"owner\":\"team-a\",\"sluice.healthCheck\":\"NONE\"}",
                "selector", "{\"type\":\"label\",\"expression\":\"CONSUMER.label.zone = a\"}")));
    ok(
        api.post(
            "/nacos/v1/ns/instance",
            OpenApiClient.params(
                "serviceName", "fixture-svc",
                "groupName", "G",
                "ip", "127.0.0.7",
                "port", "9001",
                "clusterName", "c1",
                "weight", "2",
                "ephemeral", "false",
                "metadata", "{\"zone\":\"a\"}")));
    ok(
        api.post(
            services,
            OpenApiClient.params(
                "serviceName", "ns-svc",
                "namespaceId", "fixture-ns",
                "metadata", "{\"sluice.healthCheck\":\"NONE\"}")));
    ok(api.post(services, OpenApiClient.params("serviceName", "gone-svc")));
    ok(api.delete(services, OpenApiClient.params("serviceName", "gone-svc")));
  }

  /** The writes that stay in the log after the snapshot. */
  static void afterTheSnapshot(OpenApiClient api) throws Exception {
    String configs = "/nacos/v1/cs/configs";
    ok(
        api.post(
            configs,
            OpenApiClient.params(
                "dataId", "app.properties",
                "group", "DEFAULT_GROUP",
                "content", "a=3",
                "type", "properties",
                "appName", "fixture-app",
                "src_user", "carol")));
    ok(
        api.post(
            configs,
            OpenApiClient.params(
                "dataId",
                "late.json",
                "group",
                "G",
                "content",
                "{\"late\":true}",
                "type",
                "json")));
    ok(
        api.delete(
            configs, OpenApiClient.params("dataId", "tagged.txt", "group", "G", "tag", "canary")));
    ok(
        api.post(
            "/nacos/v1/console/namespaces",
            OpenApiClient.params("customNamespaceId", "late-ns", "namespaceName", "Late")));
    ok(
        api.post(
            "/nacos/v1/ns/instance",
            OpenApiClient.params(
                "serviceName", "fixture-svc",
                "groupName", "G",
                "ip", "127.0.0.8",
                "port", "9002",
                "ephemeral", "false")));
    ok(
        api.put(
            "/nacos/v1/ns/service",
            OpenApiClient.params(
                "serviceName", "ns-svc",
                "namespaceId", "fixture-ns",
                "protectThreshold", "0.25",
                "metadata", "{\"sluice.healthCheck\":\"NONE\",\"late\":\"yes\"}")));
  }

  private static void ok(HttpResponse<String> response) throws IOException {
    if (response.statusCode() != 200 || response.body().equals("false")) {
      throw new IOException(
          response.request().method()
              + " "
              + response.request().uri()
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
  }
}
