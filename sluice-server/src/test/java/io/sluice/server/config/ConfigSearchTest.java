package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ConfigSearchTest {
  private static ConfigItem item(
      String namespace, String group, String dataId, long created, String tags) {
    ConfigMeta meta = ConfigMeta.builder().type("text").appName("app").configTags(tags).build();
    ConfigVersion formal =
        new ConfigVersion(created, dataId, "md5", meta, created, created, Set.of());
    return new ConfigItem(ConfigKey.of(namespace, group, dataId), formal, null, Map.of());
  }

  private final List<ConfigItem> all =
      List.of(
          item("", "G", "order-api.yaml", 3, "web"),
          item("", "G", "order.worker.yaml", 1, "batch,web"),
          item("", "H", "user.yaml", 2, null),
          item("dev", "G", "order-api.yaml", 4, null),
          new ConfigItem(ConfigKey.of("", "G", "beta-only"), null, null, Map.of()));

  private final Map<ConfigKey, ConfigItem> byKey =
      all.stream().collect(Collectors.toMap(ConfigItem::key, item -> item));
  private final ConfigListing listing = ConfigListing.of(all);

  private Page<ConfigItem> search(ConfigCriteria criteria, int pageNo, int pageSize) {
    return ConfigSearch.search(listing, byKey::get, criteria, pageNo, pageSize);
  }

  private List<String> dataIds(boolean blur, String dataId, String group, String tags) {
    return search(new ConfigCriteria(blur, "public", dataId, group, null, tags), 1, 10)
        .pageItems()
        .stream()
        .map(item -> item.key().dataId())
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
    Page<ConfigItem> page = search(new ConfigCriteria(false, "", "", "", null, null), 2, 2);

    assertThat(page.totalCount()).isEqualTo(3);
    assertThat(page.pagesAvailable()).isEqualTo(2);
    assertThat(page.pageItems())
        .extracting(item -> item.key().dataId())
        .containsExactly("order-api.yaml");
    assertThat(listing.counts()).containsOnly(Map.entry("", 3), Map.entry("dev", 1));
  }

  @Test
  void keepsTheListingInOrderAsConfigsArePublishedRepublishedAndRemoved() {
    ConfigItem first = item("", "G", "a", 10, null);
    ConfigItem second = item("", "G", "b", 5, null);
    ConfigListing kept = new ConfigListing();
    kept.changed(null, first);
    kept.changed(null, second);
    // A new formal version keeps its created time: the config keeps its place.
    ConfigItem republished = item("", "G", "a", 10, "tagged");
    kept.changed(first, republished);
    assertThat(kept.inOrder(""))
        .extracting(listed -> listed.key().dataId())
        .containsExactly("b", "a");
    assertThat(kept.count("")).isEqualTo(2);
    // Only a beta left: no longer listed.
    kept.changed(second, new ConfigItem(second.key(), null, second.formal(), Map.of()));
    kept.changed(republished, null);
    assertThat(kept.inOrder("")).isEmpty();
    assertThat(kept.count("")).isZero();
    assertThat(kept.counts()).isEmpty();
  }

  @Test
  void findsAnExactDataIdAndGroupWithoutWalkingTheNamespace() {
    Map<ConfigKey, ConfigItem> asked = new java.util.HashMap<>();
    Page<ConfigItem> page =
        ConfigSearch.search(
            listing,
            key -> {
              asked.put(key, byKey.get(key));
              return byKey.get(key);
            },
            new ConfigCriteria(false, "public", "user.yaml", "H", null, null),
            1,
            10);
    assertThat(page.totalCount()).isEqualTo(1);
    assertThat(page.pageItems())
        .extracting(item -> item.key().dataId())
        .containsExactly("user.yaml");
    assertThat(asked).containsOnlyKeys(ConfigKey.of("", "H", "user.yaml"));
  }
}
