package io.stunwatch.collectors.hosts;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Runs commands on GPU hosts. Every operation is asynchronous, so that one process can follow hundreds of hosts
 * without a thread for each, and a slow host never holds up another. Failures complete the futures with a
 * {@link HostFailureException} that says why.
 */
public interface HostShell extends AutoCloseable {

  /** Connects and logs in to {@code host}. */
  CompletableFuture<Connection> connect(HostAddress host);

  /** Closes every connection. */
  @Override
  void close();

  /** One logged-in connection to a host, over which several commands may run at once. */
  interface Connection extends AutoCloseable {

    /**
     * Starts a long-running command. Each line of its standard output (without the terminator) goes to
     * {@code lines}, in order, from the shell's own threads. The returned future completes when the command has
     * started; {@code ended} completes, exceptionally with the reason, when it stops for any cause.
     */
    CompletableFuture<Void> stream(String command, Consumer<String> lines, CompletableFuture<Void> ended);

    /** Runs a short command and gives its standard output, at most {@code maxBytes} of it. */
    CompletableFuture<String> capture(String command, int maxBytes);

    /** Closes the connection and what runs over it. */
    @Override
    void close();
  }
}
