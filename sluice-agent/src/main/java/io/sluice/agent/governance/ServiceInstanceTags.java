package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.SluiceContext;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;

/**
 * Reads the lane tag of a Spring Cloud {@code ServiceInstance} from its metadata: Sluice's own
 * {@code sluice.lane}, MSE's {@code alicloud.service.tag} or the OpenSergo-style {@code
 * traffic.opensergo.io/lane}, in that order. Called only when a load balancer's instance list
 * changes, never per request; the metadata accessor is looked up once per instance class.
 */
final class ServiceInstanceTags {
  /** The metadata key the agent writes when it registers an instance with a lane. */
  static final String SLUICE_LANE = "sluice.lane";

  static final String MSE_TAG = "alicloud.service.tag";
  static final String OPENSERGO_LANE = "traffic.opensergo.io/lane";

  private static final ClassValue<MethodHandle> METADATA =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
          Class<?> api = interfaceNamed(type, "org.springframework.cloud.client.ServiceInstance");
          if (api == null) {
            return null;
          }
          try {
            return MethodHandles.publicLookup()
                .findVirtual(api, "getMetadata", MethodType.methodType(Map.class))
                .asType(MethodType.methodType(Map.class, Object.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  private ServiceInstanceTags() {}

  /** The instance's lane tag, or null for a base instance (or an instance we cannot read). */
  static String tagOf(Object instance) {
    MethodHandle metadata = METADATA.get(instance.getClass());
    if (metadata == null) {
      return null;
    }
    try {
      return tagOf((Map<?, ?>) metadata.invokeExact(instance));
    } catch (Throwable t) {
      return null;
    }
  }

  static String tagOf(Map<?, ?> metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return null;
    }
    for (String key : new String[] {SLUICE_LANE, MSE_TAG, OPENSERGO_LANE}) {
      Object value = metadata.get(key);
      if (value instanceof String && !((String) value).isBlank()) {
        String tag = ((String) value).trim();
        return tag.equals(SluiceContext.BASE_LANE) ? null : tag;
      }
    }
    return null;
  }

  /** The interface of that name among {@code type}'s supertypes, or null. */
  static Class<?> interfaceNamed(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Class<?> each : c.getInterfaces()) {
        if (each.getName().equals(name)) {
          return each;
        }
        Class<?> inherited = interfaceNamed(each, name);
        if (inherited != null) {
          return inherited;
        }
      }
    }
    return null;
  }
}
