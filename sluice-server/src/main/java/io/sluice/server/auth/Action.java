package io.sluice.server.auth;

/** What a request does to a resource, as Nacos's permissions spell it: {@code r} or {@code w}. */
public enum Action {
  READ,
  WRITE;

  /** True when a permission's action ({@code r}, {@code w} or {@code rw}) allows this one. */
  boolean allowedBy(String permissionAction) {
    return permissionAction.indexOf(this == READ ? 'r' : 'w') >= 0;
  }
}
