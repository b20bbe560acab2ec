package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JvmMemoryTest {
  @Test
  void readsNmtCategoriesAndTheHeapAfterAFullCollectionFromJcmd() {
    String jcmd =
        """
        12345:
        Command executed successfully

        Native Memory Tracking:

        (Omitting categories weighting less than 1KB)

        Total: reserved=1700000KB, committed=420000KB
        -                 Java Heap (reserved=262144KB, committed=262144KB)
                                    (mmap: reserved=262144KB, committed=262144KB)

        -                     Class (reserved=1050000KB, committed=9000KB)
                                    (classes #12000)

        -                    Thread (reserved=60000KB, committed=7000KB)
                                    (thread #58)

        -                     Other (reserved=30000KB, committed=30000KB)
                                    (malloc=30000KB #120)

         def new generation   total 78656K, used 1200K [0x00000000f0000000, 0x00000000f5550000)
          eden space 69952K,   1% used [0x00000000f0000000, 0x00000000f012c000)
         tenured generation   total 174784K, used 40000K [0x00000000f5550000, 0x0000000100000000)
         Metaspace       used 60000K, committed 61000K, reserved 1114112K
          class space    used 7000K, committed 7500K, reserved 1048576K
        """;

    JvmMemory memory = JvmMemory.parse(500_000, jcmd);

    assertThat(memory.unavailable()).isNull();
    assertThat(memory.committedKib()).isEqualTo(420_000);
    assertThat(memory.committedKibByCategory())
        .containsEntry("Java Heap", 262_144L)
        .containsEntry("Class", 9_000L)
        .containsEntry("Thread", 7_000L)
        .containsEntry("Other", 30_000L);
    assertThat(memory.heapUsedAfterGcKib()).isEqualTo(41_200);
    assertThat(memory.outsideNmtKib()).isEqualTo(80_000);
  }

  @Test
  void saysSoWhenNativeMemoryTrackingIsOff() {
    JvmMemory memory =
        JvmMemory.parse(
            500_000,
            "12345:\nNative memory tracking is not enabled\n garbage-first heap   total"
                + " 262144K, used 5000K [0x0, 0x0)\n");

    assertThat(memory.unavailable()).contains("-XX:NativeMemoryTracking=summary");
    assertThat(memory.heapUsedAfterGcKib()).isEqualTo(5_000);
  }
}
