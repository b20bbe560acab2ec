package io.sluice.agent.bootstrap;

import java.io.ByteArrayInputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * The response a refused outbound call returns instead of throwing, when its resource's fallback
 * asks for one ({@link BlockVerdict#respondsOutbound()}): the verdict's status, headers and body,
 * in the client's own response type. Made only on that refusal path. (The JDK client's response is
 * made by the agent, {@link GovernanceHooks#jdkHttpResponse}: {@code java.net.http} is not visible
 * from the bootstrap class loader, where this class lives.)
 */
public final class SyntheticResponse {
  private SyntheticResponse() {}

  /**
   * A Spring {@code ClientHttpResponse} (RestTemplate, RestClient), through a {@link Proxy} of the
   * interface the advice names, since the agent cannot: {@code getStatusCode()} is built with the
   * return type's {@code valueOf(int)}, {@code getHeaders()} with its no-argument constructor and
   * {@code add(name, value)}.
   */
  public static Object springClientResponse(BlockVerdict verdict, Class<?> responseInterface) {
    return Proxy.newProxyInstance(
        responseInterface.getClassLoader(),
        new Class<?>[] {responseInterface},
        new SpringClientResponse(verdict));
  }

  private static final class SpringClientResponse implements InvocationHandler {
    private final BlockVerdict verdict;
    private Object headers;

    SpringClientResponse(BlockVerdict verdict) {
      this.verdict = verdict;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Exception {
      switch (method.getName()) {
        case "getStatusCode":
          return method
              .getReturnType()
              .getMethod("valueOf", int.class)
              .invoke(null, verdict.status());
        case "getRawStatusCode":
          return verdict.status();
        case "getStatusText":
          return "refused by Sluice (" + verdict.reason() + ")";
        case "getHeaders":
          if (headers == null) {
            Object made = method.getReturnType().getConstructor().newInstance();
            Method add = made.getClass().getMethod("add", String.class, String.class);
            String[] pairs = verdict.headers();
            for (int i = 0; i + 1 < pairs.length; i += 2) {
              add.invoke(made, pairs[i], pairs[i + 1]);
            }
            if (verdict.contentType() != null) {
              add.invoke(made, "Content-Type", verdict.contentType());
            }
            add.invoke(made, "Content-Length", Integer.toString(verdict.body().length));
            headers = made;
          }
          return headers;
        case "getBody":
          return new ByteArrayInputStream(verdict.body());
        case "hashCode":
          return System.identityHashCode(proxy);
        case "equals":
          return proxy == args[0];
        case "toString":
          return verdict.status() + " (Sluice fallback)";
        default:
          return null;
      }
    }
  }
}
