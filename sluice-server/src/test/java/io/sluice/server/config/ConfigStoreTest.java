package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.config.ConfigCommand.Publish;
import io.sluice.server.config.ConfigCommand.Remove;
import io.sluice.server.replication.LengthPrefixedString;
import io.sluice.server.replication.UnknownFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigStoreTest {
  private static final ConfigKey APP = ConfigKey.of("", "G", "app.yaml");

  @TempDir Path dir;
  private final List<ConfigChange> changes = new CopyOnWriteArrayList<>();
  private ConfigHistory history;
  private ConfigStore store;
  private long index;

  @BeforeEach
  void open() {
    history = ConfigHistory.open(dir.resolve("history"), 1 << 20);
    store = new ConfigStore(history, changes::add);
  }

  @AfterEach
  void close() {
    history.close();
  }

  private Object apply(ConfigCommand command) {
    return apply(store, ConfigCommand.encode(command));
  }

  private Object apply(ConfigStore target, byte[] command) {
    return target.apply(ByteBuffer.wrap(command).asReadOnlyBuffer(), ++index);
  }

  private static Publish publish(
      ConfigTarget target,
      String tag,
      String content,
      Set<String> betaIps,
      String casMd5,
      long at) {
    return new Publish(
        APP,
        target,
        tag,
        content,
        ContentMd5.of(content),
        ConfigMeta.builder().type("yaml").srcUser("alice").srcIp("10.0.0.9").build(),
        betaIps,
        casMd5,
        at);
  }

  private static Publish formal(String content, long at) {
    return publish(ConfigTarget.FORMAL, null, content, Set.of(), null, at);
  }

  @Test
  void publishesNewVersionsKeepingTheFirstPublishTimeAndRecordingHistory() {
    Object first = apply(formal("a: 1", 100));
    Object second = apply(formal("a: 2", 200));

    assertThat(first).isInstanceOf(ConfigOutcome.Published.class);
    ConfigVersion version = ((ConfigOutcome.Published) second).version();
    assertThat(version.id()).isEqualTo(2);
    assertThat(version.content()).isEqualTo("a: 2");
    assertThat(version.createdMillis()).isEqualTo(100);
    assertThat(version.modifiedMillis()).isEqualTo(200);
    assertThat(store.get(APP).formal()).isEqualTo(version);
    assertThat(history.list(APP, 1, 10).pageItems())
        .extracting(ConfigHistoryEntry::opType)
        .containsExactly('U', 'I');
    assertThat(changes)
        .containsExactly(new ConfigChange(APP, Set.of()), new ConfigChange(APP, Set.of()));
  }

  @Test
  void appliesACompareAndSetOnlyOverTheMd5ItExpectsAndChangesNothingOtherwise() {
    apply(formal("a: 1", 100));
    changes.clear();

    Object conflict =
        apply(publish(ConfigTarget.FORMAL, null, "a: 2", Set.of(), ContentMd5.of("other"), 200));

    assertThat(conflict).isEqualTo(new ConfigOutcome.CasConflict(ContentMd5.of("a: 1")));
    assertThat(store.get(APP).formal().content()).isEqualTo("a: 1");
    assertThat(history.lastId()).isEqualTo(1);
    assertThat(changes).isEmpty();

    Object applied =
        apply(publish(ConfigTarget.FORMAL, null, "a: 2", Set.of(), ContentMd5.of("a: 1"), 300));
    assertThat(applied).isInstanceOf(ConfigOutcome.Published.class);
    assertThat(store.get(APP).formal().content()).isEqualTo("a: 2");
  }

  @Test
  void tellsOnlyTheBetaIpsOfABetaChangeAndKeepsTheFormalVersion() {
    apply(formal("formal", 100));
    changes.clear();

    apply(publish(ConfigTarget.BETA, null, "beta", Set.of("10.0.0.1"), null, 200));
    apply(publish(ConfigTarget.BETA, null, "beta 2", Set.of("10.0.0.2"), null, 300));

    ConfigItem item = store.get(APP);
    assertThat(item.formal().content()).isEqualTo("formal");
    assertThat(item.beta().betaIps()).containsExactly("10.0.0.2");
    assertThat(item.versionFor("10.0.0.2", "", null, null).content()).isEqualTo("beta 2");
    assertThat(item.versionFor("10.0.0.1", "", null, null).content()).isEqualTo("formal");
    // The second beta publish concerns the IPs that saw the old beta and those that see the new.
    assertThat(changes)
        .containsExactly(
            new ConfigChange(APP, Set.of("10.0.0.1")),
            new ConfigChange(APP, Set.of("10.0.0.1", "10.0.0.2")));
  }

  @Test
  void removesOneVersionAndSaysWhetherThereWasOne() {
    apply(formal("formal", 100));
    apply(publish(ConfigTarget.TAG, "canary", "canary", Set.of(), null, 200));

    Object tagRemoved = apply(new Remove(APP, ConfigTarget.TAG, "canary", "bob", "10.0.0.3", 300));
    Object nothing = apply(new Remove(APP, ConfigTarget.TAG, "canary", "bob", "10.0.0.3", 400));

    assertThat(tagRemoved).isEqualTo(new ConfigOutcome.Removed(true));
    assertThat(nothing).isEqualTo(new ConfigOutcome.Removed(false));
    assertThat(store.get(APP).tags()).isEmpty();
    assertThat(store.get(APP).formal().content()).isEqualTo("formal");
    ConfigHistoryEntry deletion = history.get(3).orElseThrow();
    assertThat(deletion.opType()).isEqualTo('D');
    assertThat(deletion.content()).isEqualTo("canary");
    assertThat(deletion.meta().srcUser()).isEqualTo("bob");
    assertThat(deletion.meta().type()).isEqualTo("yaml");

    apply(new Remove(APP, ConfigTarget.FORMAL, null, "bob", "10.0.0.3", 500));
    assertThat(store.get(APP)).isNull();
  }

  @Test
  void refusesAnUnreadableCommandAndChangesNothing() {
    apply(formal("a: 1", 100));

    Object outcome = apply(store, new byte[] {0, 2, 1, 0, 0});

    assertThat(outcome).isInstanceOf(ConfigOutcome.Rejected.class);
    assertThat(store.size()).isEqualTo(1);
    assertThat(history.lastId()).isEqualTo(1);
  }

  @Test
  void stopsAtACommandOfANewerFormatRatherThanSkipIt() {
    apply(formal("a: 1", 100));

    assertThatThrownBy(() -> apply(store, new byte[] {0, 99, ConfigCommand.PUBLISH}))
        .isInstanceOf(UnknownFormatException.class)
        .hasMessageContaining("format 99");
    assertThat(store.size()).isEqualTo(1);
  }

  @Test
  void restoresEveryVersionAndTheHistoryCounterFromItsSnapshot() throws IOException {
    apply(formal("formal", 100));
    apply(publish(ConfigTarget.BETA, null, "beta", Set.of("10.0.0.1"), null, 200));
    apply(publish(ConfigTarget.TAG, "canary", "canary", Set.of(), null, 300));
    ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(snapshot)) {
      store.writeSnapshot(out);
    }

    ConfigStore restored = new ConfigStore(history, change -> {});
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(snapshot.toByteArray()))) {
      restored.loadSnapshot(in);
    }

    assertThat(restored.get(APP)).isEqualTo(store.get(APP));
    assertThat(restored.listing().counts()).isEqualTo(store.listing().counts()).hasSize(1);
    assertThat(restored.listing().inOrder(APP.namespace()))
        .extracting(ConfigListing.Listed::key)
        .containsExactly(APP);
    Object next = apply(restored, ConfigCommand.encode(formal("formal 2", 400)));
    assertThat(((ConfigOutcome.Published) next).version().id()).isEqualTo(4);
  }

  @Test
  void appliesCommandsOfFormatOneWhichHaveNoHeader() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(ConfigCommand.PUBLISH);
      for (String part : new String[] {"", "G", "app.yaml"}) {
        LengthPrefixedString.write(out, part);
      }
      out.writeByte(0); // formal, by ordinal
      LengthPrefixedString.write(out, null); // tag
      LengthPrefixedString.write(out, "a: 1");
      LengthPrefixedString.write(out, ContentMd5.of("a: 1"));
      String[] meta = {"yaml", "app", null, null, null, "alice", "10.0.0.9", null, null, null};
      for (String field : meta) {
        LengthPrefixedString.write(out, field);
      }
      out.writeInt(0); // beta IPs
      LengthPrefixedString.write(out, null); // casMd5
      out.writeLong(100);
    }

    Object outcome = apply(store, bytes.toByteArray());

    assertThat(outcome).isInstanceOf(ConfigOutcome.Published.class);
    ConfigVersion version = store.get(APP).formal();
    assertThat(version.content()).isEqualTo("a: 1");
    assertThat(version.meta().appName()).isEqualTo("app");
    assertThat(version.meta().srcIp()).isEqualTo("10.0.0.9");
    assertThat(version.modifiedMillis()).isEqualTo(100);
  }
}
