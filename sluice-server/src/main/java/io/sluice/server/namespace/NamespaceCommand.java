package io.sluice.server.namespace;

import io.sluice.server.replication.CommandFormat;
import io.sluice.server.replication.LengthPrefixedString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * A change to the namespaces, as it travels through the replicated log: everything apply needs,
 * including the creation time, so every replica applies it to the same result.
 *
 * <p>Formats ({@link CommandFormat}): {@value #FORMAT} is written, 1 and 2 are read; after the
 * header both are {@code byte op} (1 create, 2 update, 3 delete), then the fields in order as
 * {@code int length + UTF-8} strings ({@code -1} for null) and {@code long} times.
 */
sealed interface NamespaceCommand {
  /** The format commands are written in. */
  int FORMAT = 2;

  byte CREATE = 1;
  byte UPDATE = 2;
  byte DELETE = 3;

  /** Far above the field limits {@link NamespaceService} enforces: a larger length is corrupt. */
  int MAX_STRING_BYTES = 64 * 1024;

  String id();

  record Create(String id, String name, String description, long createdMillis)
      implements NamespaceCommand {}

  record Update(String id, String name, String description) implements NamespaceCommand {}

  record Delete(String id) implements NamespaceCommand {}

  static byte[] encode(NamespaceCommand command) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      CommandFormat.writeHeader(out, FORMAT);
      if (command instanceof Create c) {
        out.writeByte(CREATE);
        writeString(out, c.id());
        writeString(out, c.name());
        writeString(out, c.description());
        out.writeLong(c.createdMillis());
      } else if (command instanceof Update u) {
        out.writeByte(UPDATE);
        writeString(out, u.id());
        writeString(out, u.name());
        writeString(out, u.description());
      } else {
        out.writeByte(DELETE);
        writeString(out, command.id());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static NamespaceCommand decode(ByteBuffer buffer) throws IOException {
    CommandFormat.readHeader(buffer, FORMAT);
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    byte op = in.readByte();
    return switch (op) {
      case CREATE -> new Create(readString(in), readString(in), readString(in), in.readLong());
      case UPDATE -> new Update(readString(in), readString(in), readString(in));
      case DELETE -> new Delete(readString(in));
      default -> throw new IOException("unknown namespace command " + op);
    };
  }

  static void writeString(DataOutputStream out, String s) throws IOException {
    LengthPrefixedString.write(out, s);
  }

  static String readString(DataInputStream in) throws IOException {
    return LengthPrefixedString.read(in, MAX_STRING_BYTES);
  }
}
