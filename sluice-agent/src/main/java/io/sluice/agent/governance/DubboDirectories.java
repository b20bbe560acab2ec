package io.sluice.agent.governance;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * Reads a Dubbo consumer's provider list from its {@code Directory} as one object that stays the
 * same until the registry changes the providers, for the lane split of a directory that {@link
 * DubboLaneSplits} cannot read (which looks the split up by the list's identity).
 *
 * <p>Dubbo's public accessors ({@code Directory.getAllInvokers()}, {@code
 * AbstractDirectory.getInvokers()}) return a fresh copy on every call in 3.2 and 3.3, which would
 * make every call split the list anew. So the list is read from {@code AbstractDirectory}'s own
 * {@code invokers} field, which Dubbo replaces whole when the providers change and never modifies
 * in place, through a method handle looked up once per directory class. A directory that is not an
 * {@code AbstractDirectory}, or whose field cannot be read (a Dubbo that renamed it, Dubbo on the
 * module path), falls back to {@code getAllInvokers()}: still correct, split per call ({@link
 * #copies} says so, for one log line).
 */
final class DubboDirectories {
  static final String ABSTRACT_DIRECTORY =
      "org.apache.dubbo.rpc.cluster.directory.AbstractDirectory";

  private static final MethodType GETTER = MethodType.methodType(Object.class, Object.class);

  /** How to read one directory class's providers. */
  private record Reader(MethodHandle providers, boolean copies) {}

  private static final ClassValue<Reader> READERS =
      new ClassValue<>() {
        @Override
        protected Reader computeValue(Class<?> type) {
          MethodHandle field = invokersField(type, ABSTRACT_DIRECTORY);
          if (field != null) {
            return new Reader(field, false);
          }
          Class<?> directory =
              ServiceInstanceTags.interfaceNamed(type, "org.apache.dubbo.rpc.cluster.Directory");
          if (directory == null) {
            return new Reader(null, false);
          }
          try {
            return new Reader(
                MethodHandles.publicLookup()
                    .findVirtual(directory, "getAllInvokers", MethodType.methodType(List.class))
                    .asType(GETTER),
                true);
          } catch (ReflectiveOperationException e) {
            return new Reader(null, false);
          }
        }
      };

  private DubboDirectories() {}

  /** The directory's providers, or null when it cannot be read. */
  static List<?> providersOf(Object directory) {
    if (directory == null) {
      return null;
    }
    MethodHandle providers = READERS.get(directory.getClass()).providers;
    if (providers == null) {
      return null;
    }
    try {
      return (List<?>) (Object) providers.invokeExact(directory);
    } catch (Throwable t) {
      return null;
    }
  }

  /** Whether reading this directory's providers copies them (so lane splits are not reused). */
  static boolean copies(Object directory) {
    return directory != null && READERS.get(directory.getClass()).copies;
  }

  /**
   * A getter of the {@code invokers} list field declared by {@code type}'s superclass (or itself)
   * named {@code owner}; null when there is none or it cannot be read.
   */
  static MethodHandle invokersField(Class<?> type, String owner) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(owner)) {
        try {
          Class<?> fieldType = c.getDeclaredField("invokers").getType();
          if (!List.class.isAssignableFrom(fieldType)) {
            return null;
          }
          return MethodHandles.privateLookupIn(c, MethodHandles.lookup())
              .findGetter(c, "invokers", fieldType)
              .asType(GETTER);
        } catch (ReflectiveOperationException | RuntimeException e) {
          return null;
        }
      }
    }
    return null;
  }
}
