package io.sluice.agent.governance;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Reads the lane tag of a Dubbo provider invoker from its URL's parameters, which carry the
 * provider's registry metadata: Sluice's {@code sluice.lane}, MSE's {@code alicloud.service.tag} or
 * the OpenSergo-style {@code traffic.opensergo.io/lane}, in that order. Called only when a
 * consumer's provider list changes, never per call; the accessors are looked up once per class (the
 * agent's loader cannot see Dubbo's types, so through public method handles).
 */
final class DubboInvokerTags {
  private static final String[] KEYS = {
    ServiceInstanceTags.SLUICE_LANE, ServiceInstanceTags.MSE_TAG, ServiceInstanceTags.OPENSERGO_LANE
  };

  private static final ClassValue<MethodHandle> GET_URL =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
          Class<?> node = ServiceInstanceTags.interfaceNamed(type, "org.apache.dubbo.common.Node");
          if (node == null) {
            return null;
          }
          try {
            return MethodHandles.publicLookup()
                .findVirtual(node, "getUrl", MethodType.methodType(type(node, "getUrl")))
                .asType(MethodType.methodType(Object.class, Object.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  private static final ClassValue<MethodHandle> GET_PARAMETER =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
          try {
            return MethodHandles.publicLookup()
                .findVirtual(
                    type, "getParameter", MethodType.methodType(String.class, String.class))
                .asType(MethodType.methodType(String.class, Object.class, String.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  private DubboInvokerTags() {}

  /** The invoker's lane tag; null for a base provider, or an invoker that is not a provider's. */
  static String tagOf(Object invoker) {
    try {
      MethodHandle getUrl = GET_URL.get(invoker.getClass());
      if (getUrl == null) {
        return null;
      }
      return tagOfUrl((Object) getUrl.invokeExact(invoker));
    } catch (Throwable t) {
      return null;
    }
  }

  /** The tag among a Dubbo {@code URL}'s parameters (any object with {@code getParameter}). */
  static String tagOfUrl(Object url) {
    try {
      if (url == null) {
        return null;
      }
      MethodHandle getParameter = GET_PARAMETER.get(url.getClass());
      if (getParameter == null) {
        return null;
      }
      for (String key : KEYS) {
        String value = (String) getParameter.invokeExact(url, key);
        if (value != null && !value.isBlank()) {
          String tag = value.trim();
          return tag.equals(io.sluice.agent.bootstrap.SluiceContext.BASE_LANE) ? null : tag;
        }
      }
      return null;
    } catch (Throwable t) {
      return null;
    }
  }

  private static Class<?> type(Class<?> owner, String method) throws NoSuchMethodException {
    return owner.getMethod(method).getReturnType();
  }
}
