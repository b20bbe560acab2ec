package io.sluice.server.auth;

/**
 * Who sent a request, once its token verified.
 *
 * @param admin whether the user holds {@code ROLE_ADMIN} (every permission, the admin APIs)
 */
public record Identity(String username, boolean admin) {}
