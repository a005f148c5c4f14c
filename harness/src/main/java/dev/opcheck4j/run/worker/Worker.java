package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.AnswerLog;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Replies;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.StepFile;
import dev.opcheck4j.run.link.Wire;
import dev.opcheck4j.checks.Progress;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The main class of a worker JVM: connects to the parent's socket (argument 1), answers a parent
 * of another protocol version with {@link Replies.Mismatch}, else loads what the {@link
 * Protocol.Start} names and runs units until asked to exit. Everything the kernels print goes
 * to this process's stdout and stderr, which the parent sends to a log file, never to the socket.
 */
public final class Worker {
  /**
   * The options a worker JVM runs with (besides where its error file goes). Serial GC and the
   * client compiler: a worker's Java code is short glue around kernels, and on few cores the server
   * compiler's threads take CPU from the kernels. JavaCPP reads /proc/self/statm on every native
   * allocation to decide when to run the garbage collector for native memory; a worker frees each
   * unit's memory through a PointerScope instead, so the poll (over a quarter of a unit's time on
   * small tensors) is switched off, and so is JavaCPP's tracking of every native object for the
   * collector ({@code nopointergc}: a locked linked list and a byte count updated on every allocation
   * and every free), since nothing a worker allocates is left for the collector to free: each
   * unit's objects are freed when its scope closes, and what outlives a unit (operators, the generator,
   * tensor options, a loaded model, the kept examples of {@code KeptExamples}) is released explicitly or kept on purpose.
   */
  public static final List<String> JVM_OPTIONS = java.util.stream.Stream.concat(
      java.util.stream.Stream.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dorg.bytedeco.javacpp.maxPhysicalBytes=0",
          "-Dorg.bytedeco.javacpp.nopointergc=true"),
      dev.opcheck4j.checks.memory.MemoryBoundsCheck.JVM_OPTIONS.stream()).toList();

  private final BufferedReader in;
  private final OutputStream out;
  /** What a worker of instrumented libraries does around each unit (marks it in its output, ...). */
  private Instrumented instrumented = Instrumented.NONE;
  /** Where answers wait for the end of their exchange; null outside a numbered worker (then each is sent at once). */
  private AnswerLog answers;

  private Worker(SocketChannel channel) {
    this.in = new BufferedReader(Channels.newReader(channel, StandardCharsets.UTF_8));
    // an exchange's answers leave in one write: with the writer's default 8 KB, a batch of tries took
    // four, each waking the parent, which on two cores preempted this worker (9-12% of its samples).
    // Bytes, not a Writer: an answer is encoded once, for the answer log and the socket alike (String's
    // UTF-8 encoding replaces what cannot be encoded, as the Writer's encoder was told to)
    this.out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 20);
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
    Optional<Protocol.Start> start = Protocol.start(first);
    if (start.isEmpty()) {
      send(new Replies.Mismatch(Protocol.VERSION));
      return;
    }
    UnitRunner runner;
    try {
      runner = UnitRunner.load(start.get().init(), lib -> send(new Replies.Loading(lib)));
    } catch (LibraryLoadException | SpecException | RuntimeException e) {
      send(new Replies.LoadFailed(e.getMessage()));
      return;
    }
    String number = System.getProperty("opcheck4j.worker");
    if (number != null) {
      // the working directory is the one the parent reads the log and the step file from
      Path log = Path.of("worker-" + number + ".log");
      try {
        StepFile steps = StepFile.create(StepFile.beside(log));
        answers = AnswerLog.create(AnswerLog.beside(log));
        Progress.keepIn(steps::write);
      } catch (IOException e) {
        // a full disk: the units still run, each answer sent as it comes; a death names the unit and
        // step the parent planned, not the one the worker told
        answers = null;
        System.err.println("opcheck4j worker: its step file and answer log cannot be written (" + e.getMessage()
            + "): running without them");
      }
    }
    instrumented = Instrumented.of(start.get().init().libraries());
    send(new Replies.Ready(runner.info()));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      Protocol.Request request = Wire.read(line, Protocol.Request.class);
      if (!(request instanceof Protocol.Run r)) {
        // the parent kills a worker once it said bye: what the kernels printed is flushed first
        System.out.flush();
        System.err.flush();
        send(new Replies.Bye());
        return;
      }
      runner.open(r.opens());
      if (answers != null) {
        answers.exchange(r.id());
      }
      send(new Replies.Begin(r.id()));
      r.each(new Protocol.Run.Step() {
        @Override
        public Replies.Answered run(long id, Protocol.Unit<?> unit) {
          long t0 = System.nanoTime();
          if (answers != null) {
            answers.running(id, outputLength());
          }
          instrumented.before(id);
          Answers.Answer a;
          try {
            a = runner.run(unit);
          } catch (RuntimeException | LinkageError e) {
            a = unit.failed(e.getClass().getSimpleName() + ": " + e.getMessage());
          }
          return new Replies.Answered(id, a, (System.nanoTime() - t0) / 1_000);
        }

        @Override
        public void answered(Replies.Answered done, long next) {
          if (next < 0) {
            send(done, new Replies.End(r.id()));
          } else if (answers == null || !keep(done)) {
            // the next unit is announced in the same write as this one's answer, before it starts
            send(done, new Replies.Begin(next));
          }
          // else: kept where the parent finds it if this worker dies; sent with the exchange's last answer
        }
      });
      if (answers != null) {
        answers.running(-1);
      }
    }
  }

  /**
   * How many bytes this process has written to its log (stdout and stderr share it, opened for appending):
   * the offset of its standard output, one lseek; -1 when it cannot be read (then the parent reads the
   * exchange's output whole).
   */
  private long outputLength() {
    try {
      return STDOUT.position();
    } catch (IOException e) {
      return -1;
    }
  }

  /** This process's standard output, as a channel whose position is read; never closed (it is fd 1). */
  private static final java.nio.channels.FileChannel STDOUT =
      new java.io.FileOutputStream(java.io.FileDescriptor.out).getChannel();

  /** Keeps {@code done} in the answer log and queues it for the socket, unflushed; false when the log is full. */
  private boolean keep(Replies.Answered done) {
    byte[] line = (Wire.write(done) + "\n").getBytes(StandardCharsets.UTF_8);
    if (!answers.keep(line)) {
      return false;
    }
    try {
      out.write(line);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return true;
  }

  /** Writes the replies, one line each, and flushes once. */
  private void send(Replies.Reply... replies) {
    try {
      for (Replies.Reply r : replies) {
        out.write((Wire.write(r) + "\n").getBytes(StandardCharsets.UTF_8));
      }
      out.flush();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
