package io.sluice.server.config.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigVersion;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConfigSearchTest {
  private static ConfigItem item(
      String namespace, String group, String dataId, long created, String tags) {
    ConfigVersion formal =
        new ConfigVersion(
            created, dataId, "md5", "text", "app", null, tags, null, null, null, null, null, null,
            created, created, Set.of());
    return new ConfigItem(ConfigKey.of(namespace, group, dataId), formal, null, Map.of());
  }

  private final List<ConfigItem> all =
      List.of(
          item("", "G", "order-api.yaml", 3, "web"),
          item("", "G", "order.worker.yaml", 1, "batch,web"),
          item("", "H", "user.yaml", 2, null),
          item("dev", "G", "order-api.yaml", 4, null),
          new ConfigItem(ConfigKey.of("", "G", "beta-only"), null, null, Map.of()));

  private List<String> dataIds(boolean blur, String dataId, String group, String tags) {
    return ConfigSearch.search(
            all, new ConfigSearch.Criteria(blur, "public", dataId, group, null, tags), 1, 10)
        .pageItems()
        .stream()
        .map(ConfigJson.ConfigInfo::dataId)
        .toList();
  }

  @Test
  void matchesWildcardsOnlyInBlurSearchesAndTakesDotsLiterally() {
    assertThat(dataIds(true, "order*", "", null))
        .containsExactly("order.worker.yaml", "order-api.yaml");
    assertThat(dataIds(true, "*.worker.*", "", null)).containsExactly("order.worker.yaml");
    assertThat(dataIds(true, "order.*", "", null)).containsExactly("order.worker.yaml");
    assertThat(dataIds(false, "order*", "", null)).isEmpty();
    assertThat(dataIds(false, "user.yaml", "H", null)).containsExactly("user.yaml");
  }

  @Test
  void filtersByNamespaceGroupAndConfigTagsOldestFirst() {
    assertThat(dataIds(false, "", "", null))
        .containsExactly("order.worker.yaml", "user.yaml", "order-api.yaml");
    assertThat(dataIds(false, "", "G", "web"))
        .containsExactly("order.worker.yaml", "order-api.yaml");
    assertThat(dataIds(false, "", "", "batch")).containsExactly("order.worker.yaml");
  }

  @Test
  void pagesAndCountsTheMatches() {
    ConfigJson.Page<ConfigJson.ConfigInfo> page =
        ConfigSearch.search(all, new ConfigSearch.Criteria(false, "", "", "", null, null), 2, 2);

    assertThat(page.totalCount()).isEqualTo(3);
    assertThat(page.pagesAvailable()).isEqualTo(2);
    assertThat(page.pageItems())
        .extracting(ConfigJson.ConfigInfo::dataId)
        .containsExactly("order-api.yaml");
    assertThat(ConfigSearch.countByNamespace(all))
        .containsOnly(Map.entry("", 3), Map.entry("dev", 1));
  }
}
