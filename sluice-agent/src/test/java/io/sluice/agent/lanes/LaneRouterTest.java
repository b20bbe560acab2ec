package io.sluice.agent.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LaneRouterTest {
  record Instance(String name, String tag) {}

  private final LaneRouter<Instance> router = new LaneRouter<>(Instance::tag);

  @Test
  void sendsATaggedCallToItsLaneAndAnUntaggedOneNeverThere() {
    Instance base1 = new Instance("b1", null);
    Instance base2 = new Instance("b2", "");
    Instance gray = new Instance("g", "gray");
    List<Instance> instances = new ArrayList<>(List.of(base1, gray, base2));

    assertThat(router.select(instances, "gray")).containsExactly(gray);
    assertThat(router.select(instances, null)).containsExactly(base1, base2);
  }

  @Test
  void fallsBackToBaseWhenTheTargetHasNoInstanceOfTheLane() {
    Instance base = new Instance("b", null);
    Instance blue = new Instance("x", "blue");
    List<Instance> instances = new ArrayList<>(List.of(base, blue));

    assertThat(router.select(instances, "gray")).containsExactly(base);
  }

  @Test
  void returnsTheListItselfWhenNothingIsTagged() {
    List<Instance> instances = new ArrayList<>(List.of(new Instance("a", null)));

    assertThat(router.select(instances, "gray")).isSameAs(instances);
    assertThat(router.select(instances, null)).isSameAs(instances);
  }

  @Test
  void answersAnUntaggedCallWithNothingWhenEveryInstanceIsInALane() {
    List<Instance> instances = new ArrayList<>(List.of(new Instance("g", "gray")));

    assertThat(router.select(instances, null)).isEmpty();
  }

  @Test
  void computesOncePerListAndRecomputesForANewList() {
    List<Instance> first = new ArrayList<>(List.of(new Instance("g", "gray")));
    LaneRouter.Partition<Instance> partition = router.partitionOf(first);
    assertThat(router.partitionOf(first)).isSameAs(partition);

    List<Instance> changed = new ArrayList<>(List.of(new Instance("b", null)));
    assertThat(router.select(changed, "gray")).containsExactly(new Instance("b", null));
    assertThat(router.partitionOf(first)).isSameAs(partition);
  }

  @Test
  void keepsDecisionsRightForManyListsAtOnce() {
    List<List<Instance>> lists = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      lists.add(
          new ArrayList<>(List.of(new Instance("b" + i, null), new Instance("g" + i, "gray"))));
    }
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < lists.size(); i++) {
        assertThat(router.select(lists.get(i), "gray"))
            .containsExactly(new Instance("g" + i, "gray"));
        assertThat(router.select(lists.get(i), null)).containsExactly(new Instance("b" + i, null));
      }
    }
  }
}
