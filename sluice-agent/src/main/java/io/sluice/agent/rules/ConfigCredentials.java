package io.sluice.agent.rules;

/**
 * How the agent proves itself to a config center that has auth on: a user name and password it logs
 * in with (Nacos's {@code POST /nacos/v1/auth/users/login}, the token renewed before it expires),
 * or a ready access token sent as is. {@link #NONE} sends nothing, for a server with auth off.
 */
public record ConfigCredentials(String username, String password, String accessToken) {
  public static final ConfigCredentials NONE = new ConfigCredentials(null, null, null);

  public ConfigCredentials {
    if ((username == null) != (password == null)) {
      throw new IllegalArgumentException(
          "a config center user name needs its password and a password its user name");
    }
  }

  public boolean logsIn() {
    return username != null;
  }

  /** For the log: who the agent is, never the secret. */
  String describe() {
    if (username != null) {
      return "user '" + username + "'";
    }
    return accessToken != null ? "a configured access token" : "no credentials";
  }

  @Override
  public String toString() {
    return describe();
  }
}
