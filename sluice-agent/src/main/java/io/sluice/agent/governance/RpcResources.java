package io.sluice.agent.governance;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The resources of RPC calls on one path, found by what the framework hands the call site (the
 * service interface, the method name, the parameter types) without building their names: a service
 * is found by its class ({@link ClassValue}), a method by name and then by comparing its parameter
 * types by identity. Names are Sentinel's Dubbo adapter's: the interface's name for the service,
 * {@code interface:method(type,type)} for a method ({@link Class#getName()} of each type).
 *
 * <p>Concurrency: lookups are lock-free; a new method is added under the service's lock by copying
 * its overload array, so a reader sees either the old or the new array. {@code create} is the
 * governor's bounded by-name table: when it is full it answers null, nothing is cached, and the
 * call stays ungoverned.
 */
final class RpcResources {
  private final Function<String, GovernedResource> create;
  private final ClassValue<Service> services =
      new ClassValue<>() {
        @Override
        protected Service computeValue(Class<?> type) {
          return new Service(type.getName());
        }
      };

  RpcResources(Function<String, GovernedResource> create) {
    this.create = create;
  }

  /** The service interface's resource, or null when the table is full. */
  GovernedResource service(Class<?> type) {
    Service service = services.get(type);
    GovernedResource resource = service.self;
    if (resource == null) {
      resource = create.apply(service.name);
      service.self = resource;
    }
    return resource;
  }

  /** The method's resource, or null when the table is full. */
  GovernedResource method(Class<?> type, String method, Class<?>[] parameterTypes) {
    Service service = services.get(type);
    Overload[] overloads = service.methods.get(method);
    if (overloads != null) {
      for (Overload overload : overloads) {
        if (overload.matches(parameterTypes)) {
          return overload.resource;
        }
      }
    }
    return service.add(method, parameterTypes, create);
  }

  /** {@code interface:method(type,type)}. */
  static String methodName(String service, String method, Class<?>[] parameterTypes) {
    StringBuilder name = new StringBuilder(service).append(':').append(method).append('(');
    if (parameterTypes != null) {
      for (int i = 0; i < parameterTypes.length; i++) {
        if (i > 0) {
          name.append(',');
        }
        name.append(parameterTypes[i].getName());
      }
    }
    return name.append(')').toString();
  }

  private static final class Service {
    final String name;
    final ConcurrentHashMap<String, Overload[]> methods = new ConcurrentHashMap<>();
    // Written racily and idempotently (the by-name table hands out one handle per name).
    volatile GovernedResource self;

    Service(String name) {
      this.name = name;
    }

    synchronized GovernedResource add(
        String method, Class<?>[] parameterTypes, Function<String, GovernedResource> create) {
      Overload[] before = methods.get(method);
      if (before != null) {
        for (Overload overload : before) {
          if (overload.matches(parameterTypes)) {
            return overload.resource;
          }
        }
      }
      GovernedResource resource = create.apply(methodName(name, method, parameterTypes));
      if (resource == null) {
        return null;
      }
      Class<?>[] types = parameterTypes == null ? new Class<?>[0] : parameterTypes.clone();
      Overload[] after;
      if (before == null) {
        after = new Overload[] {new Overload(types, resource)};
      } else {
        after = java.util.Arrays.copyOf(before, before.length + 1);
        after[before.length] = new Overload(types, resource);
      }
      methods.put(method, after);
      return resource;
    }
  }

  private static final class Overload {
    final Class<?>[] parameterTypes;
    final GovernedResource resource;

    Overload(Class<?>[] parameterTypes, GovernedResource resource) {
      this.parameterTypes = parameterTypes;
      this.resource = resource;
    }

    boolean matches(Class<?>[] types) {
      int length = types == null ? 0 : types.length;
      if (length != parameterTypes.length) {
        return false;
      }
      for (int i = 0; i < length; i++) {
        if (types[i] != parameterTypes[i]) {
          return false;
        }
      }
      return true;
    }
  }
}
