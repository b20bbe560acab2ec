package io.sluice.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Access tokens as Nacos's default auth plugin issues them: a JWT signed with HMAC-SHA256, its
 * subject the user name and {@code exp} the expiry in epoch seconds. The key is the installation's
 * own, random and kept in the replicated state; there is no built-in key, so a token signed with
 * Nacos's documented default key (CVE-2021-43116's replay) is refused like any forgery.
 *
 * <p>Only the header {@code {"alg":"HS256","typ":"JWT"}} is accepted: a token that names another
 * algorithm ({@code none}, RS256) is refused before its signature is looked at.
 */
final class TokenSigner {
  private static final ObjectMapper json = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64_DECODER = Base64.getUrlDecoder();
  private static final String HEADER =
      B64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));

  /** Far above any token this server issues; longer ones are refused unread. */
  static final int MAX_TOKEN_LENGTH = 2048;

  private TokenSigner() {}

  /** The subject and expiry of a token that verified. */
  record Claims(String subject, long expiresAtSeconds) {}

  static String sign(byte[] key, String subject, long expiresAtSeconds) {
    String payload;
    try {
      payload =
          B64.encodeToString(
              json.writeValueAsBytes(
                  json.createObjectNode().put("sub", subject).put("exp", expiresAtSeconds)));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    String signed = HEADER + '.' + payload;
    return signed + '.' + B64.encodeToString(hmac(key, signed));
  }

  /**
   * The claims of a token signed with {@code key}, not expired at {@code nowSeconds}; null for
   * anything else (malformed, another algorithm, a bad signature, expired).
   */
  static Claims verify(byte[] key, String token, long nowSeconds) {
    if (key == null || token == null || token.length() > MAX_TOKEN_LENGTH) {
      return null;
    }
    int first = token.indexOf('.');
    int second = token.indexOf('.', first + 1);
    if (first < 0 || second < 0 || token.indexOf('.', second + 1) >= 0) {
      return null;
    }
    if (!token.substring(0, first).equals(HEADER) && !isHs256(token.substring(0, first))) {
      return null;
    }
    byte[] signature;
    try {
      signature = B64_DECODER.decode(token.substring(second + 1));
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (!MessageDigest.isEqual(signature, hmac(key, token.substring(0, second)))) {
      return null;
    }
    try {
      JsonNode claims = json.readTree(B64_DECODER.decode(token.substring(first + 1, second)));
      JsonNode sub = claims.get("sub");
      JsonNode exp = claims.get("exp");
      if (sub == null || !sub.isTextual() || exp == null || !exp.canConvertToLong()) {
        return null;
      }
      if (exp.asLong() <= nowSeconds) {
        return null;
      }
      return new Claims(sub.asText(), exp.asLong());
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }

  /** A header spelled differently (Nacos writes {@code {"alg":"HS256"}}) that still says HS256. */
  private static boolean isHs256(String header) {
    try {
      JsonNode node = json.readTree(B64_DECODER.decode(header));
      JsonNode alg = node.get("alg");
      return alg != null && "HS256".equals(alg.asText());
    } catch (IOException | IllegalArgumentException e) {
      return false;
    }
  }

  private static byte[] hmac(byte[] key, String signed) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
    }
  }
}
