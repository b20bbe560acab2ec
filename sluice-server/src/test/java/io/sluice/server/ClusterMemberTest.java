package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterMemberTest {
  @TempDir Path dir;

  @Test
  void readsNacosClusterConfWithCommentsBlankLinesAndTheDefaultPort() throws Exception {
    Path conf = dir.resolve("cluster.conf");
    Files.writeString(
        conf, "# three nodes\n10.0.0.1:8848\n\n  10.0.0.2:8850   # second\n10.0.0.3\n");

    assertThat(ClusterMember.readClusterConf(conf))
        .containsExactly(
            new ClusterMember("10.0.0.1", 8848),
            new ClusterMember("10.0.0.2", 8850),
            new ClusterMember("10.0.0.3", 8848));
  }

  @Test
  void refusesAListedTwiceMemberAnEmptyListAndABadPort() throws Exception {
    assertThatThrownBy(() -> ClusterMember.parseList("127.0.0.1:8848,127.0.0.1:8848"))
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> ClusterMember.parseList(" , "))
        .hasMessageContaining("no cluster member");
    assertThatThrownBy(() -> ClusterMember.parseList("127.0.0.1:eighty"))
        .hasMessageContaining("not a number");
    assertThatThrownBy(() -> ClusterMember.parseList("127.0.0.1:70000"))
        .hasMessageContaining("port must be between");
  }

  @Test
  void aNodeFindsItselfByBindAddressAndPortAndDerivesItsRaftPort() {
    List<ClusterMember> members = ClusterMember.parseList("127.0.0.1:8848,127.0.0.1:8849");
    ServerOptions second =
        ServerOptions.builder().httpPort(8849).clusterMembers(members).raftPortOffset(2000).build();

    assertThat(second.self()).isEqualTo(new ClusterMember("127.0.0.1", 8849));
    assertThat(second.raftPort()).isEqualTo(6849);
    assertThat(second.standalone()).isFalse();
  }

  @Test
  void aNodeMissingFromItsClusterListIsToldHowItLooksItselfUp() {
    ServerOptions stranger =
        ServerOptions.builder()
            .httpPort(9000)
            .clusterMembers(ClusterMember.parseList("127.0.0.1:8848,127.0.0.1:8849"))
            .build();

    assertThatThrownBy(stranger::self)
        .hasMessageContaining("127.0.0.1:9000")
        .hasMessageContaining("bind address and HTTP port");
  }

  @Test
  void aListOfOneIsStandalone() {
    ServerOptions alone =
        ServerOptions.builder().clusterMembers(ClusterMember.parseList("127.0.0.1:8848")).build();

    assertThat(alone.standalone()).isTrue();
  }
}
