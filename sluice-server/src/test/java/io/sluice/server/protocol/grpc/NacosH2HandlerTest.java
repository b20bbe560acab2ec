package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The netty-h2 transport's connection-level policy, on an embedded channel with a manual clock. */
class NacosH2HandlerTest {
  private static final int PING = 0x6;
  private static final int GO_AWAY = 0x7;
  private static final long ENHANCE_YOUR_CALM = 0xb;

  private final ManualClock clock = new ManualClock();
  private final EmbeddedChannel channel = new EmbeddedChannel(handler());

  private NacosH2Handler handler() {
    MessageCodec codec = new MessageCodec();
    ClientFaultLog faults = new ClientFaultLog(clock, Runnable::run);
    ConnectionRegistry registry = new ConnectionRegistry(clock, codec, 10, 10);
    NacosCalls calls =
        new NacosCalls(
            registry,
            new RequestRouter(codec, clock, new ServerMetrics()),
            codec,
            () -> true,
            clock,
            faults);
    return NacosH2Handler.create(calls, new HandshakeGate(10, 10, 10, faults), clock, 1 << 20);
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  @Test
  void allowsAPingEveryFiveMinutes() {
    handshake();
    for (int i = 0; i < 5; i++) {
      ping();
      clock.advance(Duration.ofMinutes(5));
    }
    assertThat(channel.isOpen()).isTrue();
    assertThat(frameTypes()).doesNotContain(GO_AWAY);
  }

  @Test
  void answersPingsFasterThanAllowedWithGoAwayEnhanceYourCalmAfterTwoStrikes() {
    handshake();
    ping(); // the first is always allowed
    ping(); // strike 1
    ping(); // strike 2
    assertThat(channel.isOpen()).isTrue();
    ping(); // strike 3: too many
    channel.runPendingTasks();
    List<long[]> frames = frames();
    assertThat(frames).anySatisfy(f -> assertThat(f).containsExactly(GO_AWAY, ENHANCE_YOUR_CALM));
    assertThat(channel.isOpen()).isFalse();
  }

  private void handshake() {
    ByteBuf in = Unpooled.buffer();
    in.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    frame(in, 0x4, 0, 0, Unpooled.EMPTY_BUFFER);
    channel.writeInbound(in);
    assertThat(channel.isOpen()).isTrue();
    assertThat(frameTypes()).contains(0x4); // the server's SETTINGS
  }

  private void ping() {
    ByteBuf in = Unpooled.buffer();
    frame(in, PING, 0, 0, Unpooled.buffer(8).writeLong(42));
    channel.writeInbound(in);
  }

  private static void frame(ByteBuf out, int type, int flags, int streamId, ByteBuf payload) {
    out.writeMedium(payload.readableBytes()).writeByte(type).writeByte(flags).writeInt(streamId);
    out.writeBytes(payload);
  }

  private List<Integer> frameTypes() {
    List<Integer> types = new ArrayList<>();
    for (long[] frame : frames()) {
      types.add((int) frame[0]);
    }
    return types;
  }

  /** Every frame written so far: its type, and for GOAWAY its error code. */
  private List<long[]> frames() {
    ByteBuf all = Unpooled.buffer();
    for (Object written; (written = channel.readOutbound()) != null; ) {
      ByteBuf buf = (ByteBuf) written;
      all.writeBytes(buf);
      buf.release();
    }
    List<long[]> frames = new ArrayList<>();
    while (all.readableBytes() >= 9) {
      int length = all.readUnsignedMedium();
      int type = all.readUnsignedByte();
      all.skipBytes(5);
      ByteBuf payload = all.readSlice(length);
      frames.add(
          type == GO_AWAY ? new long[] {type, payload.getUnsignedInt(4)} : new long[] {type});
    }
    all.release();
    return frames;
  }
}
