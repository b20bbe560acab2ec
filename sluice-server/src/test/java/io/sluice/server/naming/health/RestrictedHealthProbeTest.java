package io.sluice.server.naming.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.naming.Instance;
import io.sluice.server.naming.InstanceValidator;
import io.sluice.server.naming.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RestrictedHealthProbeTest {
  private static final ServiceKey DB = ServiceKey.of("public", "DEFAULT_GROUP", "db");
  private final List<String> probed = new ArrayList<>();
  private final HealthProbe real =
      (instance, check) -> {
        probed.add(instance.ip() + ":" + instance.port());
        return CompletableFuture.completedFuture(true);
      };

  private static Instance at(String ip, int port) {
    return InstanceValidator.instance(DB, null, ip, port, null, true, null, false, "DEFAULT", null);
  }

  private static HealthCheck http(String path) {
    return new HealthCheck(HealthCheck.Type.HTTP, path, 200);
  }

  private boolean check(HealthCheckTargets targets, Instance instance, HealthCheck check) {
    return new RestrictedHealthProbe(real, targets)
        .probe(instance, check)
        .toCompletableFuture()
        .join();
  }

  @Test
  void targetsOutsideTheAllowedNetworksOrPortsFailWithoutBeingProbed() {
    HealthCheckTargets targets =
        HealthCheckTargets.parse(List.of("10.0.0.0/8", "fd00::/8"), "80,8000-8999", false);

    assertThat(check(targets, at("10.1.2.3", 8080), HealthCheck.TCP)).isTrue();
    assertThat(check(targets, at("fd00::1", 80), HealthCheck.TCP)).isTrue();
    assertThat(check(targets, at("127.0.0.1", 8080), HealthCheck.TCP)).isFalse();
    assertThat(check(targets, at("10.1.2.3", 22), HealthCheck.TCP)).isFalse();
    assertThat(check(targets, at("11.0.0.1", 80), HealthCheck.TCP)).isFalse();
    assertThat(probed).containsExactly("10.1.2.3:8080", "fd00::1:80");
  }

  @Test
  void aCheckPathWithAQueryIsRefusedUnlessAllowed() {
    assertThat(check(HealthCheckTargets.ANY, at("10.0.0.1", 80), http("/admin?action=drop")))
        .isFalse();
    assertThat(check(HealthCheckTargets.ANY, at("10.0.0.1", 80), http("/health"))).isTrue();
    HealthCheckTargets queries = HealthCheckTargets.parse(List.of("0.0.0.0/0"), "1-65535", true);
    assertThat(check(queries, at("10.0.0.1", 80), http("/health?deep=true"))).isTrue();
  }

  @Test
  void malformedTargetsAreRefusedNamingThem() {
    assertThatThrownBy(() -> HealthCheckTargets.parse(List.of("10.0.0.0/33"), "80", false))
        .hasMessageContaining("10.0.0.0/33");
    assertThatThrownBy(() -> HealthCheckTargets.parse(List.of("example.com/8"), "80", false))
        .hasMessageContaining("example.com/8");
    assertThatThrownBy(() -> HealthCheckTargets.parse(List.of("10.0.0.0/8"), "90-80", false))
        .hasMessageContaining("90-80");
  }
}
