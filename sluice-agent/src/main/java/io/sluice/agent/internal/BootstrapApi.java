package io.sluice.agent.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Puts the bootstrap API ({@code io.sluice.agent.bootstrap}, the classes woven code calls from any
 * class loader) into the bootstrap class loader by defining its classes there one by one.
 *
 * <p>Why not {@link Instrumentation#appendToBootstrapClassLoaderSearch}: appending to the bootstrap
 * class path makes the JVM restrict class data sharing to boot classes and print "Sharing is only
 * supported for boot loader classes because bootstrap classpath has been appended" into the
 * application's output, a line the agent did not mean to print; and every class the boot loader
 * fails to find would also be looked up in the agent jar. (Measured on JDK 17 with a Spring Boot
 * AppCDS archive, the start time did not change measurably either way: the application's own
 * archived classes still loaded from the archive.) Defining the classes directly avoids both. It
 * needs the JDK's internal {@code Unsafe.defineClass}, exported for this purpose to the agent's own
 * class loader only (never to the application's); where that is not possible the caller falls back
 * to appending the jar.
 *
 * <p>This class must not refer to any bootstrap API class: they do not exist yet when it runs.
 */
public final class BootstrapApi {
  static final String PACKAGE_PATH = "io/sluice/agent/bootstrap/";

  private BootstrapApi() {}

  /**
   * Defines the jar's bootstrap API classes in the bootstrap class loader.
   *
   * @return false when this JVM does not allow it (nothing was defined; append the jar instead)
   */
  public static boolean define(Instrumentation instrumentation, JarFile agentJar) {
    Map<String, byte[]> classes;
    Method defineClass;
    Object unsafe;
    try {
      classes = read(agentJar);
      instrumentation.redefineModule(
          Object.class.getModule(),
          Set.of(),
          Map.of("jdk.internal.misc", Set.of(BootstrapApi.class.getModule())),
          Map.of(),
          Set.of(),
          Map.of());
      Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
      unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
      defineClass =
          unsafeClass.getMethod(
              "defineClass",
              String.class,
              byte[].class,
              int.class,
              int.class,
              ClassLoader.class,
              ProtectionDomain.class);
    } catch (IOException | ReflectiveOperationException | RuntimeException e) {
      return false;
    }
    defineInDependencyOrder(classes, defineClass, unsafe);
    return true;
  }

  /**
   * A class can only be defined once its superclass exists; the API's few subclasses come in no
   * particular order from the jar, so a class whose supertype is not defined yet waits for the next
   * round.
   */
  private static void defineInDependencyOrder(
      Map<String, byte[]> classes, Method defineClass, Object unsafe) {
    List<String> pending = new ArrayList<>(classes.keySet());
    while (!pending.isEmpty()) {
      List<String> waiting = new ArrayList<>();
      for (String name : pending) {
        byte[] bytes = classes.get(name);
        try {
          defineClass.invoke(unsafe, name, bytes, 0, bytes.length, null, null);
        } catch (InvocationTargetException e) {
          if (!(e.getCause() instanceof NoClassDefFoundError)) {
            throw new IllegalStateException("cannot define " + name, e.getCause());
          }
          waiting.add(name);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot define " + name, e);
        }
      }
      if (waiting.size() == pending.size()) {
        throw new IllegalStateException(
            "bootstrap API classes with missing supertypes: " + waiting);
      }
      pending = waiting;
    }
  }

  private static Map<String, byte[]> read(JarFile jar) throws IOException {
    Map<String, byte[]> classes = new LinkedHashMap<>();
    for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
      JarEntry entry = entries.nextElement();
      String path = entry.getName();
      if (path.startsWith(PACKAGE_PATH) && path.endsWith(".class")) {
        try (InputStream in = jar.getInputStream(entry)) {
          classes.put(
              path.substring(0, path.length() - ".class".length()).replace('/', '.'),
              in.readAllBytes());
        }
      }
    }
    if (classes.isEmpty()) {
      throw new IOException("no bootstrap API classes in " + jar.getName());
    }
    return classes;
  }
}
