package io.sluice.server.auth;

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
 * A change to users, roles, permissions or the token key, as it travels through the replicated log.
 * It carries everything apply needs (a password arrives hashed, the key as generated), so every
 * replica applies it to the same result.
 *
 * <p>Format {@value #FORMAT} ({@link CommandFormat}): {@code byte op}, then the op's strings in
 * order as {@code int length + UTF-8} ({@code -1} for null). Ops, never reused: 1 init key (the
 * key, Base64), 2 bootstrap admin (hash), 3 create user (name, hash), 4 set password (name, hash),
 * 5 delete user (name), 6 add role (role, user), 7 delete role (role, user or null for every user),
 * 8 add permission (role, resource, action), 9 delete permission (role, resource, action).
 */
sealed interface AuthCommand {
  int FORMAT = 2;

  byte INIT_KEY = 1;
  byte BOOTSTRAP_ADMIN = 2;
  byte CREATE_USER = 3;
  byte SET_PASSWORD = 4;
  byte DELETE_USER = 5;
  byte ADD_ROLE = 6;
  byte DELETE_ROLE = 7;
  byte ADD_PERMISSION = 8;
  byte DELETE_PERMISSION = 9;

  /** Far above the field limits {@link AuthService} enforces: a larger length is corrupt. */
  int MAX_STRING_BYTES = 4 * 1024;

  /** Sets the token key, unless one is set already (the first start's key wins). */
  record InitKey(String keyBase64) implements AuthCommand {}

  /** Creates the admin user {@code nacos} with {@code ROLE_ADMIN}, unless an admin exists. */
  record BootstrapAdmin(String passwordHash) implements AuthCommand {}

  record CreateUser(String username, String passwordHash) implements AuthCommand {}

  record SetPassword(String username, String passwordHash) implements AuthCommand {}

  record DeleteUser(String username) implements AuthCommand {}

  record AddRole(String role, String username) implements AuthCommand {}

  /**
   * @param username null to take the role from every user
   */
  record DeleteRole(String role, String username) implements AuthCommand {}

  record AddPermission(String role, String resource, String action) implements AuthCommand {}

  record DeletePermission(String role, String resource, String action) implements AuthCommand {}

  static byte[] encode(AuthCommand command) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      CommandFormat.writeHeader(out, FORMAT);
      if (command instanceof InitKey c) {
        write(out, INIT_KEY, c.keyBase64());
      } else if (command instanceof BootstrapAdmin c) {
        write(out, BOOTSTRAP_ADMIN, c.passwordHash());
      } else if (command instanceof CreateUser c) {
        write(out, CREATE_USER, c.username(), c.passwordHash());
      } else if (command instanceof SetPassword c) {
        write(out, SET_PASSWORD, c.username(), c.passwordHash());
      } else if (command instanceof DeleteUser c) {
        write(out, DELETE_USER, c.username());
      } else if (command instanceof AddRole c) {
        write(out, ADD_ROLE, c.role(), c.username());
      } else if (command instanceof DeleteRole c) {
        write(out, DELETE_ROLE, c.role(), c.username());
      } else if (command instanceof AddPermission c) {
        write(out, ADD_PERMISSION, c.role(), c.resource(), c.action());
      } else {
        DeletePermission c = (DeletePermission) command;
        write(out, DELETE_PERMISSION, c.role(), c.resource(), c.action());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void write(DataOutputStream out, byte op, String... fields) throws IOException {
    out.writeByte(op);
    for (String field : fields) {
      LengthPrefixedString.write(out, field);
    }
  }

  static AuthCommand decode(ByteBuffer buffer) throws IOException {
    int format = CommandFormat.readHeader(buffer, FORMAT);
    if (format != FORMAT) {
      throw new IOException("auth commands start at format " + FORMAT + ", found " + format);
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    byte op = in.readByte();
    return switch (op) {
      case INIT_KEY -> new InitKey(read(in));
      case BOOTSTRAP_ADMIN -> new BootstrapAdmin(read(in));
      case CREATE_USER -> new CreateUser(read(in), read(in));
      case SET_PASSWORD -> new SetPassword(read(in), read(in));
      case DELETE_USER -> new DeleteUser(read(in));
      case ADD_ROLE -> new AddRole(read(in), read(in));
      case DELETE_ROLE -> new DeleteRole(read(in), read(in));
      case ADD_PERMISSION -> new AddPermission(read(in), read(in), read(in));
      case DELETE_PERMISSION -> new DeletePermission(read(in), read(in), read(in));
      default -> throw new IOException("unknown auth command " + op);
    };
  }

  static void writeString(DataOutputStream out, String s) throws IOException {
    LengthPrefixedString.write(out, s);
  }

  static String read(DataInputStream in) throws IOException {
    return LengthPrefixedString.read(in, MAX_STRING_BYTES);
  }
}
