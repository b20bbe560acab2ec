package io.sluice.e2e.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.LinkedHashMap;
import java.util.Map;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.matcher.ElementMatchers;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Uses the app's own Byte Buddy, Netty and Jackson and reports which copies it got, so a test can
 * check the agent's shaded libraries neither replace nor disturb them.
 */
@RestController
class LibrariesController {
  @GetMapping("/libs")
  Map<String, Object> libraries() throws Exception {
    Map<String, Object> result = new LinkedHashMap<>();
    Class<?> generated =
        new ByteBuddy()
            .subclass(Object.class)
            .method(ElementMatchers.named("toString"))
            .intercept(FixedValue.value("made by the app's Byte Buddy"))
            .make()
            .load(getClass().getClassLoader())
            .getLoaded();
    result.put("byteBuddy", generated.getDeclaredConstructor().newInstance().toString());
    result.put("byteBuddyVersion", ByteBuddy.class.getPackage().getImplementationVersion());
    result.put("byteBuddyLoader", String.valueOf(ByteBuddy.class.getClassLoader()));
    ByteBuf buffer = Unpooled.buffer().writeInt(42);
    result.put("netty", buffer.readInt());
    buffer.release();
    result.put("jackson", new ObjectMapper().writeValueAsString(Map.of("k", "v")));
    result.put("agentClassesVisible", visible("io.sluice.agent.shaded.net.bytebuddy.ByteBuddy"));
    result.put("agentInternalsVisible", visible("io.sluice.agent.internal.AgentInstaller"));
    return result;
  }

  private boolean visible(String className) {
    try {
      Class.forName(className, false, getClass().getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
