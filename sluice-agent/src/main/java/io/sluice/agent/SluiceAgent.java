package io.sluice.agent;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.util.jar.JarFile;

/**
 * The agent's entry point ({@code -javaagent:sluice-agent.jar=...} or a runtime attach). It does as
 * little as possible in the application's class loader: it opens an isolated {@link
 * AgentClassLoader} over the jar's hidden {@code inst/} classes (the agent proper, with its shaded
 * Byte Buddy and sluice-flow), has it define the jar's bootstrap API in the bootstrap class loader
 * ({@code io.sluice.agent.internal.BootstrapApi}; appending the jar to the bootstrap class path
 * instead, which makes the JVM print a warning into the application's output, only where that is
 * not possible) and hands over to {@code io.sluice.agent.internal.AgentInstaller}. Nothing else
 * from the jar becomes visible to the application.
 *
 * <p>A failure here is printed once and the application starts unagented: governance must never
 * stop an application from running.
 */
public final class SluiceAgent {
  private static final String INSTALLER = "io.sluice.agent.internal.AgentInstaller";
  private static final String BOOTSTRAP_API = "io.sluice.agent.internal.BootstrapApi";
  private static boolean started;

  private SluiceAgent() {}

  public static void premain(String agentArgs, Instrumentation instrumentation) {
    start(agentArgs, instrumentation, false);
  }

  public static void agentmain(String agentArgs, Instrumentation instrumentation) {
    start(agentArgs, instrumentation, true);
  }

  private static synchronized void start(
      String agentArgs, Instrumentation instrumentation, boolean attached) {
    if (started) {
      System.err.println("[sluice-agent] already started; ignoring a second start");
      return;
    }
    started = true;
    long startNanos = System.nanoTime();
    try {
      File jar = agentJar();
      JarFile jarFile = new JarFile(jar, false);
      ClassLoader agentLoader = new AgentClassLoader(jar, ClassLoader.getPlatformClassLoader());
      if (!definedBootstrapApi(agentLoader, instrumentation, jarFile)) {
        instrumentation.appendToBootstrapClassLoaderSearch(jarFile);
      }
      Class<?> installer = agentLoader.loadClass(INSTALLER);
      installer
          .getMethod(
              "install",
              String.class,
              Instrumentation.class,
              ClassLoader.class,
              boolean.class,
              long.class)
          .invoke(null, agentArgs, instrumentation, agentLoader, attached, startNanos);
    } catch (Throwable t) {
      Throwable cause = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
      System.err.println("[sluice-agent] not started, the application runs ungoverned: " + cause);
    }
  }

  /** Whether the bootstrap API was defined in the boot loader; false leaves it to the caller. */
  private static boolean definedBootstrapApi(
      ClassLoader agentLoader, Instrumentation instrumentation, JarFile jarFile) {
    try {
      return (Boolean)
          agentLoader
              .loadClass(BOOTSTRAP_API)
              .getMethod("define", Instrumentation.class, JarFile.class)
              .invoke(null, instrumentation, jarFile);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static File agentJar() throws URISyntaxException {
    return new File(SluiceAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
