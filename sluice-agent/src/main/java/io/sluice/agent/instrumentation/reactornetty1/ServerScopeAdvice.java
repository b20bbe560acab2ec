package io.sluice.agent.instrumentation.reactornetty1;

import io.sluice.agent.bootstrap.SluiceContext;
import net.bytebuddy.asm.Advice;

/**
 * Woven into Reactor Netty's {@code HttpServer.HttpServerHandle.onStateChange}, which applies the
 * server's handler to a received request and subscribes to its pipeline in one call: a server scope
 * around it lets the WebFlux entry hook make the request's context current for exactly that
 * synchronous part, and restores the event loop's own (empty) context afterwards, whatever happens.
 */
public final class ServerScopeAdvice {
  private ServerScopeAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  public static SluiceContext enter() {
    return SluiceContext.enterServerScope();
  }

  @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
  public static void exit(@Advice.Enter SluiceContext previous) {
    SluiceContext.exitServerScope(previous);
  }
}
