package io.sluice.server.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The md5 Nacos clients compare configs by: lowercase hex of the MD5 of the UTF-8 content, {@code
 * ""} for no content. Must match the client's computation bit for bit, or every listener sees a
 * change that is not there.
 */
public final class ContentMd5 {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Cloning a digest is cheaper than looking one up by name through the security providers. */
  private static final MessageDigest PROTOTYPE = newDigest();

  private ContentMd5() {}

  public static String of(String content) {
    if (content == null) {
      return "";
    }
    MessageDigest digest;
    try {
      digest = (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      digest = newDigest();
    }
    byte[] hash = digest.digest(content.getBytes(StandardCharsets.UTF_8));
    char[] hex = new char[hash.length * 2];
    for (int i = 0; i < hash.length; i++) {
      hex[2 * i] = HEX[(hash[i] >> 4) & 0xF];
      hex[2 * i + 1] = HEX[hash[i] & 0xF];
    }
    return new String(hex);
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has MD5", e);
    }
  }
}
