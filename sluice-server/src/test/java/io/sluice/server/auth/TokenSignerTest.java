package io.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TokenSignerTest {
  private final byte[] key = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  @Test
  void aSignedTokenVerifiesUntilItExpires() {
    String token = TokenSigner.sign(key, "alice", 1_000);

    assertThat(TokenSigner.verify(key, token, 999))
        .isEqualTo(new TokenSigner.Claims("alice", 1_000));
    assertThat(TokenSigner.verify(key, token, 1_000)).isNull();
  }

  @Test
  void anotherKeyOrATamperedPayloadIsRefused() {
    String token = TokenSigner.sign(key, "alice", 1_000);
    String[] parts = token.split("\\.");
    String admin = TokenSigner.sign(key, "nacos", 1_000).split("\\.")[1];

    assertThat(
            TokenSigner.verify(
                "another-key-another-key-another!".getBytes(StandardCharsets.UTF_8), token, 1))
        .isNull();
    assertThat(TokenSigner.verify(key, parts[0] + "." + admin + "." + parts[2], 1)).isNull();
  }

  @Test
  void malformedTokensAreRefusedWithoutThrowing() {
    for (String bad :
        new String[] {"", ".", "..", "a.b.c", "a.b.c.d", "%%%.%%%.%%%", "x".repeat(5000)}) {
      assertThat(TokenSigner.verify(key, bad, 1)).as(bad).isNull();
    }
  }
}
