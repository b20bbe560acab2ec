package io.sluice.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Password hashes, PBKDF2 with HMAC-SHA256 from the JDK: a random 16-byte salt per password and
 * {@value #ITERATIONS} iterations (OWASP's 2021 figure), kept as {@code
 * pbkdf2-sha256$iterations$salt$hash} (Base64), so a later change of the cost still verifies old
 * hashes. Hashing is slow on purpose (tens to hundreds of milliseconds): never call it on an event
 * loop.
 */
final class PasswordHasher {
  static final int ITERATIONS = 310_000;
  private static final String PREFIX = "pbkdf2-sha256";
  private static final int SALT_BYTES = 16;
  private static final int HASH_BITS = 256;

  /** Room for the format: longer stored hashes are corrupt. */
  static final int MAX_HASH_LENGTH = 256;

  private final SecureRandom random;
  private final int iterations;

  PasswordHasher(SecureRandom random) {
    this(random, ITERATIONS);
  }

  PasswordHasher(SecureRandom random, int iterations) {
    this.random = random;
    this.iterations = iterations;
  }

  String hash(String password) {
    byte[] salt = new byte[SALT_BYTES];
    random.nextBytes(salt);
    Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
    return PREFIX
        + '$'
        + iterations
        + '$'
        + b64.encodeToString(salt)
        + '$'
        + b64.encodeToString(derive(password, salt, iterations));
  }

  /** True when {@code password} matches {@code stored}; false for any malformed hash. */
  static boolean matches(String password, String stored) {
    if (stored == null) {
      return false;
    }
    String[] parts = stored.split("\\$");
    if (parts.length != 4 || !parts[0].equals(PREFIX)) {
      return false;
    }
    try {
      int iterations = Integer.parseInt(parts[1]);
      if (iterations < 1 || iterations > 10_000_000) {
        return false;
      }
      byte[] salt = Base64.getDecoder().decode(parts[2]);
      byte[] expected = Base64.getDecoder().decode(parts[3]);
      return MessageDigest.isEqual(expected, derive(password, salt, iterations));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Spends the time a verification takes, for a user that does not exist: a failed login answers in
   * the same time whether or not the name is known.
   */
  void spendVerificationTime(String password) {
    derive(password, new byte[SALT_BYTES], iterations);
  }

  private static byte[] derive(String password, byte[] salt, int iterations) {
    try {
      PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, HASH_BITS);
      try {
        return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
            .generateSecret(spec)
            .getEncoded();
      } finally {
        spec.clearPassword();
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available in this JDK", e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
