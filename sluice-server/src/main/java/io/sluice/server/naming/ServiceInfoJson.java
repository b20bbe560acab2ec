package io.sluice.server.naming;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;

/**
 * One rendering of a service's {@code serviceInfo} JSON, shared by every query and push of a {@link
 * ServiceView}: its UTF-8 bytes, and for a rendering the view keeps, made on first use, the same
 * bytes followed by the {@code }} that closes an enclosing object, in direct memory, so a transport
 * can send the JSON as the last member of its answer without copying it.
 *
 * <p>Memory: the direct copy is a JDK direct buffer wrapped unreleasable. Nobody releases it: its
 * memory is freed by the garbage collector once neither this rendering nor any answer still queued
 * in a socket refers to it, so a rendering replaced or forgotten while answers are in flight stays
 * valid until they are written. Only renderings the view keeps get one (never the uncounted ones it
 * renders past its filter bound) and only those of at least {@link #MIN_SHARED_BYTES}, where
 * copying costs more than referencing; so live direct memory is bounded as the view's cache is, and
 * garbage ones count against the JVM's direct-memory limit, which collects before it refuses.
 *
 * <p>Concurrency: immutable but for the lazily made copy; two threads may each make one at first
 * use, and either is correct.
 */
public final class ServiceInfoJson {
  /** The smallest rendering worth a direct copy of its own: below it, an answer copies it. */
  public static final int MIN_SHARED_BYTES = 1024;

  private final byte[] utf8;
  private final boolean kept;

  /** Made on first use; never written after, never released. */
  private volatile ByteBuf asLastMember;

  /**
   * @param utf8 the JSON object, never written to afterwards
   * @param kept whether its owner caches it (only then may it get a direct copy)
   */
  public ServiceInfoJson(byte[] utf8, boolean kept) {
    this.utf8 = utf8;
    this.kept = kept;
  }

  /** The JSON as UTF-8. The array is shared: never write to it. */
  public byte[] utf8() {
    return utf8;
  }

  /**
   * The JSON then {@code }}, in direct memory, or null for a rendering that is small or not kept
   * (the caller then copies {@link #utf8}). The buffer is shared by every caller: read it only at
   * absolute indexes or through a composite, never write to it, never release it (release does
   * nothing).
   */
  public ByteBuf asLastMember() {
    ByteBuf shared = asLastMember;
    if (shared == null && kept && utf8.length >= MIN_SHARED_BYTES) {
      ByteBuffer direct = ByteBuffer.allocateDirect(utf8.length + 1);
      direct.put(utf8).put((byte) '}').flip();
      shared = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(direct));
      asLastMember = shared;
    }
    return shared;
  }
}
