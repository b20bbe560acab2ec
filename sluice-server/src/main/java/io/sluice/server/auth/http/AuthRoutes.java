package io.sluice.server.auth.http;

import io.sluice.server.auth.AuthOutcome;
import io.sluice.server.auth.AuthService;
import io.sluice.server.auth.LoginThrottle;
import io.sluice.server.auth.Permission;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.ClientIp;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.NacosErrorCode;
import io.sluice.server.protocol.http.ParamsHandler;
import io.sluice.server.protocol.http.RequestParams;
import io.sluice.server.protocol.http.RestResult;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Nacos's auth API (its default plugin's, 2.3) on the HTTP port. Who may call what is decided
 * before these handlers, by {@link HttpAccessRules}: login is open, a user may change its own
 * password, everything else here needs the admin.
 *
 * <ul>
 *   <li>{@code POST /nacos/v1/auth/users/login} and {@code /nacos/v1/auth/login} ({@code username},
 *       {@code password}): {@code {"accessToken","tokenTtl","globalAdmin","username"}} and an
 *       {@code Authorization: Bearer} header, as the official client expects; 401 for a wrong name
 *       or password. With auth off, login answers an empty token: nothing is checked.
 *   <li>{@code /nacos/v1/auth/users}: GET a page, POST create, PUT ({@code newPassword}) change a
 *       password, DELETE; {@code GET /users/search?username=} names containing the fragment.
 *   <li>{@code /nacos/v1/auth/roles}: GET a page of (role, user), POST bind, DELETE unbind ({@code
 *       username} optional: every user); {@code GET /roles/search?role=}.
 *   <li>{@code /nacos/v1/auth/permissions}: GET a page, POST and DELETE ({@code role}, {@code
 *       resource} as {@code namespace:group:type/name} or a namespace id, {@code action} r, w, rw).
 * </ul>
 *
 * Changes answer Nacos's {@code {"code":200,"message":...,"data":null}}; a refused one the status
 * of its fault, the message as text.
 */
public final class AuthRoutes implements HttpRoutes {
  static final String BASE = "/nacos/v1/auth";
  static final String LOGIN = BASE + "/users/login";
  static final String LEGACY_LOGIN = BASE + "/login";
  static final String USERS = BASE + "/users";
  static final String ROLES = BASE + "/roles";
  static final String PERMISSIONS = BASE + "/permissions";
  private static final long MAX_BODY_BYTES = 16 * 1024;

  private final AuthService auth;
  private final LoginThrottle logins;

  /**
   * @param logins how often each source address may log in
   */
  public AuthRoutes(AuthService auth, LoginThrottle logins) {
    this.auth = auth;
    this.logins = logins;
  }

  /** A page as Nacos's console API returns one. */
  record PageJson<T>(int totalCount, int pageNumber, int pagesAvailable, List<T> pageItems) {}

  record UserJson(String username) {}

  record LoginJson(String accessToken, long tokenTtl, boolean globalAdmin, String username) {}

  @Override
  public void mount(Router router) {
    router.route(HttpMethod.POST, LOGIN).handler(v1(this::login));
    router.route(HttpMethod.POST, LEGACY_LOGIN).handler(v1(this::login));
    router.route(HttpMethod.GET, USERS).handler(v1(this::listUsers));
    router.route(HttpMethod.GET, USERS + "/search").handler(v1(this::searchUsers));
    router.route(HttpMethod.POST, USERS).handler(v1(this::createUser));
    router.route(HttpMethod.PUT, USERS).handler(v1(this::updateUser));
    router.route(HttpMethod.DELETE, USERS).handler(v1(this::deleteUser));
    router.route(HttpMethod.GET, ROLES).handler(v1(this::listRoles));
    router.route(HttpMethod.GET, ROLES + "/search").handler(v1(this::searchRoles));
    router.route(HttpMethod.POST, ROLES).handler(v1(this::addRole));
    router.route(HttpMethod.DELETE, ROLES).handler(v1(this::deleteRole));
    router.route(HttpMethod.GET, PERMISSIONS).handler(v1(this::listPermissions));
    router.route(HttpMethod.POST, PERMISSIONS).handler(v1(this::addPermission));
    router.route(HttpMethod.DELETE, PERMISSIONS).handler(v1(this::deletePermission));
  }

  private static Handler<RoutingContext> v1(ParamsHandler handler) {
    return RequestParams.handler(MAX_BODY_BYTES, ApiStyle.V1, handler);
  }

  private void login(HttpServerRequest request, HttpParams params) {
    String username = params.required("username");
    String password = params.required("password");
    if (!auth.enabled()) {
      HttpResponses.ok(
          request.response(), new LoginJson("", auth.tokenTtlSeconds(), true, username));
      return;
    }
    String source = ClientIp.ofSocket(request);
    long wait = logins.secondsToWait(source);
    if (wait > 0) {
      request.response().putHeader("Retry-After", Long.toString(wait));
      HttpResponses.text(
          request.response(),
          429,
          "too many logins from "
              + source
              + ": at most "
              + logins.perMinute()
              + " a minute per address (max-logins-per-minute); retry in "
              + wait
              + " s");
      return;
    }
    AsyncReply.when(
        auth.login(username, password),
        request,
        ApiStyle.V1,
        login -> {
          request.response().putHeader("Authorization", "Bearer " + login.accessToken());
          HttpResponses.ok(
              request.response(),
              new LoginJson(
                  login.accessToken(),
                  login.tokenTtlSeconds(),
                  login.globalAdmin(),
                  login.username()));
        });
  }

  private void listUsers(HttpServerRequest request, HttpParams params) {
    page(request, params, auth.users(), UserJson::new);
  }

  private void searchUsers(HttpServerRequest request, HttpParams params) {
    HttpResponses.ok(request.response(), auth.searchUsers(params.get("username")));
  }

  private void createUser(HttpServerRequest request, HttpParams params) {
    change(
        request,
        auth.createUser(params.required("username"), params.required("password")),
        "create user ok!");
  }

  private void updateUser(HttpServerRequest request, HttpParams params) {
    change(
        request,
        auth.setPassword(params.required("username"), params.required("newPassword")),
        "update user ok!");
  }

  private void deleteUser(HttpServerRequest request, HttpParams params) {
    change(request, auth.deleteUser(params.required("username")), "delete user ok!");
  }

  private void listRoles(HttpServerRequest request, HttpParams params) {
    String user = params.get("username");
    String role = params.get("role");
    List<AuthService.RoleBinding> matching = new ArrayList<>();
    for (AuthService.RoleBinding binding : auth.roles()) {
      if ((user == null || user.isBlank() || user.equals(binding.username()))
          && (role == null || role.isBlank() || role.equals(binding.role()))) {
        matching.add(binding);
      }
    }
    page(request, params, matching, Function.identity());
  }

  private void searchRoles(HttpServerRequest request, HttpParams params) {
    String fragment = params.get("role");
    Set<String> roles = new LinkedHashSet<>();
    for (AuthService.RoleBinding binding : auth.roles()) {
      if (fragment == null || binding.role().contains(fragment)) {
        roles.add(binding.role());
      }
    }
    HttpResponses.ok(request.response(), List.copyOf(roles));
  }

  private void addRole(HttpServerRequest request, HttpParams params) {
    change(
        request,
        auth.addRole(params.required("role"), params.required("username")),
        "add role ok!");
  }

  private void deleteRole(HttpServerRequest request, HttpParams params) {
    String user = params.get("username");
    change(
        request,
        auth.deleteRole(params.required("role"), user),
        user == null || user.isBlank()
            ? "delete role ok!"
            : "delete role of user " + user + " ok!");
  }

  private void listPermissions(HttpServerRequest request, HttpParams params) {
    String role = params.get("role");
    List<Permission> matching = new ArrayList<>();
    for (Permission permission : auth.permissions()) {
      if (role == null || role.isBlank() || role.equals(permission.role())) {
        matching.add(permission);
      }
    }
    page(request, params, matching, Function.identity());
  }

  private void addPermission(HttpServerRequest request, HttpParams params) {
    change(
        request,
        auth.addPermission(
            params.required("role"), params.required("resource"), params.required("action")),
        "add permission ok!");
  }

  private void deletePermission(HttpServerRequest request, HttpParams params) {
    change(
        request,
        auth.deletePermission(
            params.required("role"), params.required("resource"), params.required("action")),
        "delete permission ok!");
  }

  private static <T, J> void page(
      HttpServerRequest request, HttpParams params, List<T> all, Function<T, J> json) {
    int pageNo = params.intInRange("pageNo", 1, 1, Integer.MAX_VALUE);
    int pageSize = params.intInRange("pageSize", 100, 1, 1_000);
    List<J> items = new ArrayList<>();
    long from = (long) (pageNo - 1) * pageSize;
    for (int i = (int) Math.min(from, all.size()); i < all.size() && items.size() < pageSize; i++) {
      items.add(json.apply(all.get(i)));
    }
    int pages = (all.size() + pageSize - 1) / pageSize;
    HttpResponses.ok(request.response(), new PageJson<>(all.size(), pageNo, pages, items));
  }

  private static void change(
      HttpServerRequest request, CompletableFuture<AuthOutcome> change, String success) {
    AsyncReply.when(
        change,
        request,
        ApiStyle.V1,
        outcome -> {
          if (outcome instanceof AuthOutcome.AlreadyExists exists) {
            throw new HttpApiException(
                409, NacosErrorCode.RESOURCE_CONFLICT, exists.what() + " already exists");
          }
          if (outcome instanceof AuthOutcome.NotFound missing) {
            throw new HttpApiException(
                404, NacosErrorCode.RESOURCE_NOT_FOUND, missing.what() + " not found");
          }
          HttpResponses.ok(request.response(), RestResult.ok(success, null));
        });
  }
}
