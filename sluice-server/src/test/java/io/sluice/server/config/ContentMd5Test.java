package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ContentMd5Test {
  @Test
  void isLowercaseHexOfTheUtf8Bytes() {
    assertThat(ContentMd5.of("")).isEqualTo("d41d8cd98f00b204e9800998ecf8427e");
    assertThat(ContentMd5.of("ü")).isEqualTo(md5sumOfUtf8("ü"));
    assertThat(ContentMd5.of("hello")).isEqualTo("5d41402abc4b2a76b9719d911017c592");
  }

  private static String md5sumOfUtf8(String s) {
    try {
      byte[] hash =
          java.security.MessageDigest.getInstance("MD5")
              .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return String.format("%032x", new java.math.BigInteger(1, hash));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void isEmptyForNoContent() {
    assertThat(ContentMd5.of(null)).isEmpty();
  }

  @Test
  void givesTheSameAnswerFromManyThreadsAtOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<String>> tasks =
          IntStream.range(0, 2_000)
              .<Callable<String>>mapToObj(i -> () -> ContentMd5.of("hello"))
              .toList();
      for (Future<String> result : pool.invokeAll(tasks)) {
        assertThat(result.get()).isEqualTo("5d41402abc4b2a76b9719d911017c592");
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
