package io.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class PasswordHasherTest {
  /** Few iterations: the test checks the format and the comparison, not the cost. */
  private final PasswordHasher hasher = new PasswordHasher(new SecureRandom(), 1_000);

  @Test
  void aHashMatchesItsPasswordOnlyAndIsSaltedEachTime() {
    String hash = hasher.hash("correct horse");

    assertThat(hash).startsWith("pbkdf2-sha256$1000$").doesNotContain("correct horse");
    assertThat(PasswordHasher.matches("correct horse", hash)).isTrue();
    assertThat(PasswordHasher.matches("correct horsf", hash)).isFalse();
    assertThat(hasher.hash("correct horse")).isNotEqualTo(hash);
  }

  @Test
  void aMalformedHashMatchesNothing() {
    for (String bad :
        new String[] {
          null, "", "plain", "md5$1$a$b", "pbkdf2-sha256$x$a$b", "pbkdf2-sha256$0$AA$AA"
        }) {
      assertThat(PasswordHasher.matches("anything", bad)).as(String.valueOf(bad)).isFalse();
    }
  }
}
