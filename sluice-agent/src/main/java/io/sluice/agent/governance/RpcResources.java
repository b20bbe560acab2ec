package io.sluice.agent.governance;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The calls of one RPC path, found by what the framework hands the call site (the service
 * interface, the method name, the parameter types) without building their names: a service is found
 * by its class ({@link ClassValue}), a method by name and then by comparing its parameter types by
 * identity. One lookup gives both resources of a call ({@link RpcCall}). Names are Sentinel's Dubbo
 * adapter's: the interface's name for the service, {@code interface:method(type,type)} for a method
 * ({@link Class#getName()} of each type).
 *
 * <p>Concurrency: lookups are lock-free; a new method is added under the service's lock by copying
 * its overload array, so a reader sees either the old or the new array. {@code create} is the
 * governor's bounded by-name table: when it is full it answers null and the method stays
 * ungoverned. Up to {@link #MAX_UNGOVERNED} such methods are remembered as ungoverned, so their
 * calls do not build the name again; past that, each of their calls builds it to be refused again
 * (a path with over 10,000 methods, which the by-name table has already logged).
 */
final class RpcResources {
  static final int MAX_UNGOVERNED = 1024;

  private final Function<String, GovernedResource> create;
  private final AtomicInteger ungoverned = new AtomicInteger();
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

  /** The call's handle, or null when the path's table is full. */
  RpcCall call(Class<?> type, String method, Class<?>[] parameterTypes) {
    Service service = services.get(type);
    Overload[] overloads = service.methods.get(method);
    if (overloads != null) {
      for (Overload overload : overloads) {
        if (overload.matches(parameterTypes)) {
          return overload.call;
        }
      }
    }
    return service.add(method, parameterTypes, this);
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
    GovernedResource self; // guarded by this

    Service(String name) {
      this.name = name;
    }

    synchronized RpcCall add(String method, Class<?>[] parameterTypes, RpcResources table) {
      Overload[] before = methods.get(method);
      if (before != null) {
        for (Overload overload : before) {
          if (overload.matches(parameterTypes)) {
            return overload.call;
          }
        }
      }
      if (self == null) {
        self = table.create.apply(name);
      }
      GovernedResource resource = table.create.apply(methodName(name, method, parameterTypes));
      RpcCall call = resource == null ? null : new RpcCall(self, resource);
      if (call == null && table.ungoverned.incrementAndGet() > MAX_UNGOVERNED) {
        return null;
      }
      Class<?>[] types = parameterTypes == null ? new Class<?>[0] : parameterTypes.clone();
      Overload[] after;
      if (before == null) {
        after = new Overload[] {new Overload(types, call)};
      } else {
        after = Arrays.copyOf(before, before.length + 1);
        after[before.length] = new Overload(types, call);
      }
      methods.put(method, after);
      return call;
    }
  }

  private static final class Overload {
    final Class<?>[] parameterTypes;
    final RpcCall call; // null: the table was full, the method is not governed

    Overload(Class<?>[] parameterTypes, RpcCall call) {
      this.parameterTypes = parameterTypes;
      this.call = call;
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
