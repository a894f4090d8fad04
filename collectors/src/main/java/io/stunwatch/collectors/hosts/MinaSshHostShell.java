package io.stunwatch.collectors.hosts;

import io.stunwatch.metrics.HostFailure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.UserAuthFactory;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelListener;
import org.apache.sshd.common.keyprovider.FileKeyPairProvider;
import org.apache.sshd.core.CoreModuleProperties;

/**
 * {@link HostShell} over SSH with Apache MINA SSHD: one client, asynchronous connects and channels on its I/O
 * threads, public-key authentication only, host keys checked against a {@code known_hosts} file (reread when it
 * changes) and never added to it. Neither {@code ~/.ssh/config} nor an agent is consulted: what is configured is
 * what is used.
 */
public final class MinaSshHostShell implements HostShell {

  private static final AttributeKey<HostFailure> REFUSED = new AttributeKey<>();
  /** The longest line kept; a longer one is cut (no nvidia-smi line comes near it). */
  static final int MAX_LINE = 64 * 1024;

  private final SshClient client;
  private final String user;

  public MinaSshHostShell(String user, Path identityFile, Path knownHosts, Duration timeout) {
    this.user = user;
    client = SshClient.setUpDefaultClient();
    KnownHostsServerKeyVerifier verifier = new KnownHostsServerKeyVerifier((session, address, key) -> {
      session.setAttribute(REFUSED, HostFailure.UNKNOWN_HOST_KEY);
      return false; // never trust on first use
    }, knownHosts);
    verifier.setModifiedServerKeyAcceptor((session, address, entry, expected, actual) -> {
      session.setAttribute(REFUSED, HostFailure.CHANGED_HOST_KEY);
      return false;
    });
    client.setServerKeyVerifier(verifier);
    client.setHostConfigEntryResolver(HostConfigEntryResolver.EMPTY);
    client.setKeyIdentityProvider(new FileKeyPairProvider(identityFile));
    client.setUserAuthFactories(List.<UserAuthFactory>of(UserAuthPublicKeyFactory.INSTANCE));
    CoreModuleProperties.AUTH_TIMEOUT.set(client, timeout);
    CoreModuleProperties.IO_CONNECT_TIMEOUT.set(client, timeout);
    CoreModuleProperties.CHANNEL_OPEN_TIMEOUT.set(client, timeout);
    // keep-alives, so that a dead peer is noticed by the transport too, not only by a silent stream
    CoreModuleProperties.HEARTBEAT_INTERVAL.set(client, Duration.ofSeconds(15));
    client.start();
  }

  @Override
  public CompletableFuture<Connection> connect(HostAddress host) {
    CompletableFuture<Connection> result = new CompletableFuture<>();
    ConnectFuture connecting;
    try {
      connecting = client.connect(user, host.address(), host.port());
    } catch (IOException | RuntimeException e) {
      result.completeExceptionally(new HostFailureException(HostFailure.UNREACHABLE, host + ": " + e, e));
      return result;
    }
    connecting.addListener(f -> {
      if (!f.isConnected()) {
        result.completeExceptionally(new HostFailureException(HostFailure.UNREACHABLE,
            host + ": cannot connect: " + message(f.getException()), f.getException()));
        return;
      }
      ClientSession session = f.getSession();
      try {
        session.auth().addListener(auth -> {
          if (auth.isSuccess()) {
            result.complete(new MinaConnection(host, session));
            return;
          }
          HostFailure refused = session.getAttribute(REFUSED);
          session.close(true);
          String why = refused == HostFailure.UNKNOWN_HOST_KEY
              ? "its key is not in known_hosts (refused; add it after checking its fingerprint)"
              : refused == HostFailure.CHANGED_HOST_KEY
                  ? "its key is not the one pinned in known_hosts (refused: a reinstalled host, or someone in between)"
                  : "login as " + user + " with the key refused: " + message(auth.getException());
          result.completeExceptionally(new HostFailureException(refused != null ? refused : HostFailure.AUTH_REFUSED,
              host + ": " + why, auth.getException()));
        });
      } catch (IOException | RuntimeException e) {
        session.close(true);
        result.completeExceptionally(new HostFailureException(HostFailure.UNREACHABLE, host + ": " + e, e));
      }
    });
    return result;
  }

  private static String message(Throwable t) {
    if (t == null) {
      return "no reason given";
    }
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }

  @Override
  public void close() {
    client.stop();
  }

  private static final class MinaConnection implements Connection {
    private final HostAddress host;
    private final ClientSession session;

    MinaConnection(HostAddress host, ClientSession session) {
      this.host = host;
      this.session = session;
    }

    @Override
    public CompletableFuture<Void> stream(String command, Consumer<String> lines, CompletableFuture<Void> ended) {
      CompletableFuture<Void> started = new CompletableFuture<>();
      ByteArrayOutputStream err = new BoundedBytes(4096);
      try {
        ChannelExec channel = session.createExecChannel(command);
        channel.setOut(new LineSplitter(lines));
        channel.setErr(err);
        channel.addChannelListener(new ChannelListener() {
          @Override
          public void channelClosed(Channel c, Throwable reason) {
            Integer exit = channel.getExitStatus();
            String stderr = err.toString(StandardCharsets.UTF_8).strip();
            HostFailure why = exit == null && !session.isOpen() ? HostFailure.UNREACHABLE : HostFailure.COMMAND_ENDED;
            ended.completeExceptionally(new HostFailureException(why, host + ": '" + command + "' ended"
                + (exit == null ? "" : " with exit status " + exit)
                + (stderr.isEmpty() ? "" : ": " + stderr.lines().findFirst().orElse(""))
                + (why == HostFailure.UNREACHABLE ? " (connection lost)" : ""), reason));
          }
        });
        channel.open().addListener(open -> {
          if (open.isOpened()) {
            started.complete(null);
          } else {
            started.completeExceptionally(new HostFailureException(HostFailure.COMMAND_ENDED,
                host + ": cannot start '" + command + "': " + message(open.getException()), open.getException()));
          }
        });
      } catch (IOException | RuntimeException e) {
        started.completeExceptionally(new HostFailureException(HostFailure.UNREACHABLE,
            host + ": cannot start '" + command + "': " + e, e));
      }
      return started;
    }

    @Override
    public CompletableFuture<String> capture(String command, int maxBytes) {
      CompletableFuture<String> result = new CompletableFuture<>();
      ByteArrayOutputStream out = new BoundedBytes(maxBytes);
      try {
        ChannelExec channel = session.createExecChannel(command);
        channel.setOut(out);
        channel.setErr(OutputStream.nullOutputStream());
        channel.addChannelListener(new ChannelListener() {
          @Override
          public void channelClosed(Channel c, Throwable reason) {
            Integer exit = channel.getExitStatus();
            if (exit != null && exit == 0) {
              result.complete(out.toString(StandardCharsets.UTF_8));
            } else {
              result.completeExceptionally(new HostFailureException(HostFailure.COMMAND_ENDED,
                  host + ": '" + command + "' ended" + (exit == null ? "" : " with exit status " + exit), reason));
            }
          }
        });
        channel.open().addListener(open -> {
          if (!open.isOpened()) {
            result.completeExceptionally(new HostFailureException(HostFailure.COMMAND_ENDED,
                host + ": cannot start '" + command + "': " + message(open.getException()), open.getException()));
          }
        });
      } catch (IOException | RuntimeException e) {
        result.completeExceptionally(new HostFailureException(HostFailure.UNREACHABLE,
            host + ": cannot start '" + command + "': " + e, e));
      }
      return result;
    }

    @Override
    public void close() {
      session.close(true);
    }
  }

  /** Keeps the first {@code max} bytes written, drops the rest. */
  private static final class BoundedBytes extends ByteArrayOutputStream {
    private final int max;

    BoundedBytes(int max) {
      this.max = max;
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      super.write(b, off, Math.max(0, Math.min(len, max - count)));
    }

    @Override
    public synchronized void write(int b) {
      if (count < max) {
        super.write(b);
      }
    }
  }

  /** Cuts a byte stream into UTF-8 lines without their terminators. */
  static final class LineSplitter extends OutputStream {
    private final Consumer<String> lines;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineSplitter(Consumer<String> lines) {
      this.lines = lines;
    }

    @Override
    public void write(int b) {
      if (b == '\n') {
        emit();
      } else if (line.size() < MAX_LINE) {
        line.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) {
      int start = off;
      for (int i = off; i < off + len; i++) {
        if (b[i] == '\n') {
          append(b, start, i - start);
          emit();
          start = i + 1;
        }
      }
      append(b, start, off + len - start);
    }

    private void append(byte[] b, int off, int len) {
      line.write(b, off, Math.max(0, Math.min(len, MAX_LINE - line.size())));
    }

    private void emit() {
      String s = line.toString(StandardCharsets.UTF_8);
      line.reset();
      lines.accept(s.endsWith("\r") ? s.substring(0, s.length() - 1) : s);
    }
  }
}
