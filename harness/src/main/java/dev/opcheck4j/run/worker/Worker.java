package dev.opcheck4j.run.worker;

import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.Protocol;
import dev.opcheck4j.run.Wire;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The main class of a worker JVM: connects to the parent's socket (argument 1), loads what the
 * {@link Protocol.Init} names and runs units until asked to exit. Everything the kernels print goes
 * to this process's stdout and stderr, which the parent sends to a log file, never to the socket.
 */
public final class Worker {
  private final BufferedReader in;
  private final Writer out;

  private Worker(SocketChannel channel) {
    this.in = new BufferedReader(Channels.newReader(channel, StandardCharsets.UTF_8));
    this.out = Channels.newWriter(channel, StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws IOException {
    try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(Path.of(args[0])))) {
      new Worker(channel).serve();
    }
    System.exit(0);
  }

  private void serve() throws IOException {
    String first = in.readLine();
    if (first == null) {
      return;
    }
    Protocol.Request init = Wire.read(first, Protocol.Request.class);
    UnitRunner runner;
    try {
      runner = UnitRunner.load(init.init(), lib -> send(new Protocol.Reply(init.id(), "loading", lib, null, null)));
    } catch (LibraryLoadException | SpecException | RuntimeException e) {
      send(new Protocol.Reply(init.id(), "load-error", e.getMessage(), null, null));
      return;
    }
    send(new Protocol.Reply(init.id(), "ready", null, null, runner.info()));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      Protocol.Request r = Wire.read(line, Protocol.Request.class);
      if (r.unit() == null) {
        return;
      }
      send(new Protocol.Reply(r.id(), "begin", null, null, null));
      Verdict v;
      try {
        v = runner.run(r.unit());
      } catch (RuntimeException | LinkageError e) {
        v = Verdict.errored(e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      send(new Protocol.Reply(r.id(), "done", null, v, null));
    }
  }

  private void send(Protocol.Reply reply) {
    try {
      out.write(Wire.write(reply));
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
