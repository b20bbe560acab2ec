package io.sluice.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RegisterHistoryTest {
  private static final long NEVER = Long.MAX_VALUE;
  private final RegisterHistory history = new RegisterHistory();

  @Test
  void acceptsReadsOfTheLatestWriteAndOfOverlappingWrites() {
    history.add("k", true, "a", 0, 10);
    history.add("k", false, "a", 11, 12);
    // A write overlapping a read: either value may be read.
    history.add("k", true, "b", 20, 40);
    history.add("k", false, "a", 21, 22);
    history.add("k", false, "b", 30, 35);
    history.add("k", false, "b", 41, 42);

    assertThat(history.violation()).isNull();
  }

  @Test
  void refusesAStaleReadAfterANewerWriteWasAcknowledged() {
    history.add("k", true, "a", 0, 10);
    history.add("k", true, "b", 11, 20);
    history.add("k", false, "a", 21, 22);

    assertThat(history.violation()).contains("key k");
  }

  @Test
  void refusesAReadOfAValueNobodyWrote() {
    history.add("k", true, "a", 0, 10);
    history.add("k", false, "z", 11, 12);

    assertThat(history.violation()).isNotNull();
  }

  @Test
  void refusesReadsThatGoBackInTimeEvenWhileTheWritesOverlap() {
    history.add("k", true, "a", 0, 100);
    history.add("k", true, "b", 0, 100);
    history.add("k", false, "b", 10, 20);
    history.add("k", false, "a", 30, 40);
    history.add("k", false, "b", 50, 60);

    assertThat(history.violation()).isNotNull();
  }

  @Test
  void refusesAnAbsentReadAfterAnAcknowledgedWrite() {
    history.add("k", false, null, 0, 1);
    history.add("k", true, "a", 2, 3);
    history.add("k", false, null, 4, 5);

    assertThat(history.violation()).isNotNull();
  }

  @Test
  void aWriteWithAnUnknownOutcomeMayHaveHappenedOrNot() {
    history.add("k", true, "a", 0, 10);
    history.add("k", true, "lost?", 11, NEVER);
    history.add("k", false, "a", 20, 21);
    history.add("k", false, "lost?", 30, 31);

    assertThat(history.violation()).isNull();

    RegisterHistory never = new RegisterHistory();
    never.add("k", true, "a", 0, 10);
    never.add("k", true, "lost?", 11, NEVER);
    never.add("k", false, "a", 20, 21);
    assertThat(never.violation()).as("it may never take effect").isNull();

    RegisterHistory flip = new RegisterHistory();
    flip.add("k", true, "a", 0, 10);
    flip.add("k", true, "lost?", 11, NEVER);
    flip.add("k", false, "lost?", 20, 21);
    flip.add("k", false, "a", 30, 31);
    assertThat(flip.violation()).as("but once seen, it cannot be unseen").isNotNull();
  }

  @Test
  void staysFastWhenAFailoverLeavesManyWritesUnknown() {
    long t = 0;
    for (int i = 0; i < 400; i++) {
      history.add("k", true, "unknown-" + i, t, NEVER);
      history.add("k", true, "v" + i, t + 1, t + 10);
      history.add("k", false, "v" + i, t + 11, t + 12);
      t += 13;
    }

    assertThat(history.violation()).isNull();
  }

  @Test
  void checksKeysApart() {
    history.add("x", true, "1", 0, 10);
    history.add("y", true, "2", 0, 10);
    history.add("x", false, "1", 11, 12);
    history.add("y", false, "1", 11, 12);

    assertThat(history.violation()).contains("key y");
  }

  @Test
  void copesWithAThousandConcurrentOperations() {
    long t = 0;
    for (int i = 0; i < 250; i++) {
      history.add("k", true, "v" + i, t, t + 30);
      history.add("k", false, i == 0 ? null : "v" + (i - 1), t + 1, t + 2);
      history.add("k", false, "v" + i, t + 5, t + 40);
      history.add("k", false, "v" + i, t + 31, t + 32);
      t += 33;
    }

    assertThat(history.violation()).isNull();
  }
}
