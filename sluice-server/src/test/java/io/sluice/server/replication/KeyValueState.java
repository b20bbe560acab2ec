package io.sluice.server.replication;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small replicated state for tests: a string map plus per-key append-only lists (to observe
 * ordering). Commands are an op byte followed by UTF strings.
 *
 * <p>Outcomes: PUT and DELETE return the previous value (or null), APPEND the list's new size, an
 * unknown op the string "error: unknown op N". NEWER_FORMAT is a command this version cannot read.
 * THROW throws, to test a state that breaks its contract. {@link #failNextApply} throws an error
 * (an OutOfMemoryError, say) out of the next apply after its command took effect, as a real one
 * would out of the apply thread at any point.
 */
final class KeyValueState implements ReplicatedState {
  private static final byte PUT = 1;
  private static final byte DELETE = 2;
  private static final byte APPEND = 3;
  private static final byte THROW = 4;
  private static final byte NEWER_FORMAT = 5;

  private final String name;
  private final Map<String, String> values = new ConcurrentHashMap<>();
  private final Map<String, List<String>> lists = new ConcurrentHashMap<>();
  private volatile long lastAppliedIndex = -1;
  private volatile Error nextApplyFailure;

  KeyValueState() {
    this("kv");
  }

  KeyValueState(String name) {
    this.name = name;
  }

  static byte[] put(String key, String value) {
    return command(PUT, key, value);
  }

  static byte[] delete(String key) {
    return command(DELETE, key);
  }

  static byte[] append(String key, String value) {
    return command(APPEND, key, value);
  }

  static byte[] throwing() {
    return new byte[] {THROW};
  }

  /** A command in a format newer than this state reads. */
  static byte[] newerFormat() {
    return new byte[] {NEWER_FORMAT};
  }

  static byte[] unknownOp() {
    return new byte[] {99};
  }

  @Override
  public String name() {
    return name;
  }

  /** Throws {@code error} out of the next apply, once, after the command took effect. */
  void failNextApply(Error error) {
    nextApplyFailure = error;
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    Object outcome = applyCommand(command, logIndex);
    Error failure = nextApplyFailure;
    if (failure != null) {
      nextApplyFailure = null;
      throw failure;
    }
    return outcome;
  }

  private Object applyCommand(ByteBuffer command, long logIndex) {
    lastAppliedIndex = logIndex;
    byte op = command.get();
    switch (op) {
      case PUT:
        return values.put(utf(command), utf(command));
      case DELETE:
        return values.remove(utf(command));
      case APPEND:
        {
          String key = utf(command);
          String value = utf(command);
          List<String> list = lists.computeIfAbsent(key, k -> new ArrayList<>());
          synchronized (list) {
            list.add(value);
            return list.size();
          }
        }
      case THROW:
        throw new IllegalStateException("this command always throws");
      case NEWER_FORMAT:
        throw new UnknownFormatException("command format 99 is newer than this state reads");
      default:
        return "error: unknown op " + op;
    }
  }

  @Override
  public void writeSnapshot(DataOutputStream out) throws IOException {
    out.writeInt(values.size());
    for (Map.Entry<String, String> entry : values.entrySet()) {
      out.writeUTF(entry.getKey());
      out.writeUTF(entry.getValue());
    }
    out.writeInt(lists.size());
    for (Map.Entry<String, List<String>> entry : lists.entrySet()) {
      out.writeUTF(entry.getKey());
      List<String> list = entry.getValue();
      synchronized (list) {
        out.writeInt(list.size());
        for (String value : list) {
          out.writeUTF(value);
        }
      }
    }
  }

  @Override
  public void loadSnapshot(DataInputStream in) throws IOException {
    values.clear();
    lists.clear();
    int count = in.readInt();
    for (int i = 0; i < count; i++) {
      values.put(in.readUTF(), in.readUTF());
    }
    int listCount = in.readInt();
    for (int i = 0; i < listCount; i++) {
      String key = in.readUTF();
      int size = in.readInt();
      List<String> list = new ArrayList<>(size);
      for (int j = 0; j < size; j++) {
        list.add(in.readUTF());
      }
      lists.put(key, list);
    }
  }

  String get(String key) {
    return values.get(key);
  }

  Set<String> keys() {
    return Set.copyOf(values.keySet());
  }

  int size() {
    return values.size();
  }

  List<String> list(String key) {
    List<String> list = lists.getOrDefault(key, List.of());
    synchronized (list) {
      return List.copyOf(list);
    }
  }

  long lastAppliedIndex() {
    return lastAppliedIndex;
  }

  private static byte[] command(byte op, String... fields) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(op);
      for (String field : fields) {
        out.writeUTF(field);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static String utf(ByteBuffer buffer) {
    int length = Short.toUnsignedInt(buffer.getShort());
    ByteBuffer slice = buffer.slice(buffer.position(), length);
    buffer.position(buffer.position() + length);
    // Modified UTF-8 equals UTF-8 for the strings tests use (no NUL, no supplementary chars).
    return StandardCharsets.UTF_8.decode(slice).toString();
  }
}
