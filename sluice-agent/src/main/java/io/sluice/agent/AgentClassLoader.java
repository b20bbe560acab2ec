package io.sluice.agent;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Loads the agent proper from the {@code inst/} folder of the agent jar, where its classes are
 * stored as {@code .classdata} so that no other class loader (and no classpath scanner, such as
 * Spring's) ever sees them as classes. Its parent is the platform loader: the agent sees the JDK
 * and the bootstrap API, never the application's classes, and the application never sees the
 * agent's shaded libraries.
 *
 * <p>Resources are served under their ordinary names ({@code Foo.class} → {@code
 * inst/Foo.classdata}) so that Byte Buddy can read advice class files by name.
 */
final class AgentClassLoader extends ClassLoader {
  static final String PREFIX = "inst/";
  static final String CLASS_SUFFIX = ".classdata";

  static {
    registerAsParallelCapable();
  }

  private final JarFile jar;
  private final String jarUrl;
  private final ProtectionDomain protectionDomain;

  AgentClassLoader(File jarFile, ClassLoader parent) throws IOException {
    super("sluice-agent", parent);
    this.jar = new JarFile(jarFile, false);
    this.jarUrl = jarFile.toURI().toURL().toString();
    this.protectionDomain =
        new ProtectionDomain(
            new CodeSource(jarFile.toURI().toURL(), (Certificate[]) null), null, this, null);
  }

  @Override
  protected Class<?> findClass(String name) throws ClassNotFoundException {
    byte[] bytes = read(entryName(name.replace('.', '/') + ".class"));
    if (bytes == null) {
      throw new ClassNotFoundException(name);
    }
    int lastDot = name.lastIndexOf('.');
    if (lastDot > 0) {
      String pkg = name.substring(0, lastDot);
      if (getDefinedPackage(pkg) == null) {
        try {
          definePackage(pkg, null, null, null, null, null, null, null);
        } catch (IllegalArgumentException alreadyDefinedConcurrently) {
          // Another thread defined it first.
        }
      }
    }
    return defineClass(name, bytes, 0, bytes.length, protectionDomain);
  }

  @Override
  protected URL findResource(String name) {
    String entry = entryName(name);
    if (jar.getJarEntry(entry) == null) {
      return null;
    }
    try {
      return new URL("jar:" + jarUrl + "!/" + entry);
    } catch (MalformedURLException e) {
      return null;
    }
  }

  @Override
  protected Enumeration<URL> findResources(String name) {
    URL url = findResource(name);
    return url == null
        ? Collections.emptyEnumeration()
        : Collections.enumeration(java.util.List.of(url));
  }

  @Override
  public InputStream getResourceAsStream(String name) {
    byte[] bytes = read(entryName(name));
    if (bytes != null) {
      return new ByteArrayInputStream(bytes);
    }
    return super.getResourceAsStream(name);
  }

  private static String entryName(String resource) {
    return resource.endsWith(".class")
        ? PREFIX + resource.substring(0, resource.length() - ".class".length()) + CLASS_SUFFIX
        : PREFIX + resource;
  }

  private byte[] read(String entryName) {
    JarEntry entry = jar.getJarEntry(entryName);
    if (entry == null) {
      return null;
    }
    try (InputStream in = jar.getInputStream(entry)) {
      return in.readAllBytes();
    } catch (IOException e) {
      return null;
    }
  }
}
