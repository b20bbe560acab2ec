package io.sluice.server.auth;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.server.naming.NamingException;
import io.sluice.server.naming.health.HealthCheck;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the small documents clients send in text: access tokens (any string
 * verifies or is refused with null, and never verifies unless signed with the key) and health check
 * rules in service metadata (parse or refuse with a NamingException).
 */
class TokenFuzzTest {
  private static final byte[] KEY =
      "fuzzing-key-fuzzing-key-fuzzing!".getBytes(StandardCharsets.UTF_8);

  @FuzzTest(maxDuration = "5s")
  void tokensAndHealthCheckRulesAreReadOrRefused(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    if (TokenSigner.verify(KEY, text, 0) != null) {
      throw new AssertionError("an unsigned string verified as a token: " + text);
    }
    try {
      HealthCheck.parse(text);
    } catch (NamingException refused) {
      // a malformed rule
    }
  }
}
