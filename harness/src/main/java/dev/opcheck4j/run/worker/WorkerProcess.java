package dev.opcheck4j.run.worker;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Verdict;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One worker JVM, seen from the parent: started in its own process group (so a kill takes every
 * thread and child with it), its output appended to {@code worker-N.log} and its JVM error file
 * written to the run directory, and spoken to over a Unix-domain socket of its own.
 */
public final class WorkerProcess implements Kernels {
  private static final Set<WorkerProcess> LIVE = ConcurrentHashMap.newKeySet();
  /** Worker JVMs started but not yet connected: a stop must reach them too, not wait until they load. */
  private static final Set<Process> LAUNCHING = ConcurrentHashMap.newKeySet();
  /** The socket dirs of workers being started: deleted at exit too, however the JVM ends. */
  private static final Set<Path> SOCKET_DIRS = ConcurrentHashMap.newKeySet();
  /** Set as the JVM exits: no worker starts after, so none outlives it. */
  private static volatile boolean exiting;
  private static final boolean SETSID = Files.isExecutable(Path.of("/usr/bin/setsid"));
  /**
   * Told a worker's number once its JVM runs and a stop reaches it, before it connects: what a test of
   * stopping a starting worker waits for (instead of polling the process table).
   */
  static volatile java.util.function.IntConsumer launched = n -> {};
  private static final String EOF = "\u0000eof";

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      exiting = true;
      LIVE.forEach(WorkerProcess::kill);
      SOCKET_DIRS.forEach(WorkerProcess::deleteSocketDir);
    }, "opcheck4j-worker-reaper"));
  }

  private final Process process;
  private final Path dir;
  private final Path log;
  private final SocketChannel channel;
  private final Selector selector;
  /** What the worker sent and was not read yet: bytes {@code head} to {@code tail}, searched up to {@code head + scanned}. */
  private byte[] received = new byte[1 << 16];
  private int head;
  private int tail;
  private int scanned;
  private long nextId;
  /** The log's length when the exchange in flight was sent: what follows is that exchange's output. */
  private long logMark;
  private volatile boolean killedByUs;
  /** The class-data archive this worker writes as it exits, or null. */
  private WorkerArchive archive;
  private Path archiveTmp;

  // replies are read in the calling thread (no reader thread to hand lines over): one wake-up less per unit
  private WorkerProcess(Process process, SocketChannel channel, Path dir, Path log) throws IOException {
    this.process = process;
    this.dir = dir;
    this.log = log;
    this.channel = channel;
    channel.configureBlocking(false);
    this.selector = Selector.open();
    channel.register(selector, SelectionKey.OP_READ);
  }

  /**
   * Starts a worker and has it load {@code init}'s libraries.
   *
   * @param dir where its log and JVM error file go (also its working directory)
   * @param loading called with each library's path as the worker starts loading it
   * @throws KernelDeath when it died while loading (a static initializer crashed)
   * @throws LoadError when a library could not be loaded, or the worker speaks another protocol version
   */
  public static Started start(Path dir, int number, Protocol.Init init, Duration deadline, Consumer<String> loading)
      throws KernelDeath, LoadError {
    return start(dir, number, init, deadline, loading, Protocol.VERSION);
  }

  /** {@link #start(Path, int, Protocol.Init, Duration, Consumer)} speaking protocol {@code version}. */
  public static Started start(Path dir, int number, Protocol.Init init, Duration deadline, Consumer<String> loading,
      int version) throws KernelDeath, LoadError {
    WorkerProcess w = launch(dir, number, init.workers());
    w.send(new Protocol.Start(version, init));
    String library = null;
    while (true) {
      Protocol.Reply r = w.next(deadline, "loading " + (library == null ? "libtorch" : library));
      if (r instanceof Protocol.Loading l) {
        library = l.library();
        loading.accept(library);
      } else if (r instanceof Protocol.Ready ready) {
        w.adoptFiles();
        return new Started(w, ready.info());
      } else if (r instanceof Protocol.LoadFailed f) {
        w.close();
        throw new LoadError(f.message());
      } else if (r instanceof Protocol.Mismatch m) {
        w.close();
        throw new LoadError(m.describe(version));
      } else {
        throw new IllegalStateException("unexpected reply while loading: " + r);
      }
    }
  }

  /** A worker with what it loaded. */
  public record Started(WorkerProcess worker, WorkerInfo info) {}

  /** A library the worker could not load (its message names it). */
  public static final class LoadError extends Exception {
    LoadError(String message) {
      super(message);
    }
  }

  private static WorkerProcess launch(Path dir, int number, int workers) {
    Path sockDir = null;
    try {
      Files.createDirectories(dir);
      // socket paths are limited to ~108 bytes: a short temporary directory, not the report dir
      if (exiting) {
        throw new IllegalStateException("no worker starts while the JVM exits");
      }
      sockDir = Files.createTempDirectory("opcheck4j-");
      SOCKET_DIRS.add(sockDir);
      Path socket = sockDir.resolve("w.sock");
      try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
        server.bind(UnixDomainSocketAddress.of(socket));
        Path log = dir.resolve("worker-" + number + ".log");
        List<String> cmd = new ArrayList<>();
        if (SETSID) {
          cmd.add("/usr/bin/setsid");
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:ErrorFile=" + dir.toAbsolutePath().resolve("hs_err_pid%p.log"));
        cmd.add("-XX:-CreateCoredumpOnCrash");
        cmd.addAll(Worker.JVM_OPTIONS);
        cmd.add("-Dopcheck4j.worker=" + number);
        String classPath = absoluteClassPath();
        Optional<WorkerArchive> archive = WorkerArchive.configured(classPath);
        WorkerArchive.Options cds = archive.map(WorkerArchive::options).orElse(new WorkerArchive.Options(List.of(), null));
        cmd.addAll(cds.jvm());
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add("dev.opcheck4j.run.worker.Worker");
        cmd.add(socket.toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        // libtorch's error log is how a stable-ABI kernel's real message is recovered (it goes to the
        // worker's log file, not to the console), so a caller's quieter level is not inherited
        pb.environment().remove("TORCH_CPP_LOG_LEVEL");
        // workers that share the cores: libtorch's OpenMP threads (one per core in every worker) spin
        // after each parallel region, and in a two-worker run on two cores that spinning took a sixth
        // of the CPU time from the other worker. Waiting passively, a kernel still runs on every core.
        // A caller's own settings stand.
        if (workers > 1 && System.getenv("OMP_WAIT_POLICY") == null && System.getenv("GOMP_SPINCOUNT") == null) {
          pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
        }
        Process p = pb.start();
        LAUNCHING.add(p);
        launched.accept(number);
        server.configureBlocking(false);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
          SocketChannel ch = server.accept();
          if (ch != null) {
            WorkerProcess w = new WorkerProcess(p, ch, dir, log);
            if (cds.writing() != null) {
              w.archive = archive.get();
              w.archiveTmp = cds.writing();
            }
            LIVE.add(w);
            LAUNCHING.remove(p); // after joining LIVE, so terminateAll finds it in one set or the other
            if (exiting) {
              w.kill();
              throw new IllegalStateException("no worker starts while the JVM exits");
            }
            return w;
          }
          if (!p.isAlive() || System.nanoTime() > until) {
            p.destroyForcibly();
            LAUNCHING.remove(p);
            if (cds.writing() != null) {
              archive.get().abandoned(cds.writing());
            }
            throw new IllegalStateException("the worker JVM did not start (exit " + (p.isAlive() ? "none" : p.exitValue())
                + "); its output: " + log);
          }
          Thread.sleep(5);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting a worker", e);
    } finally {
      if (sockDir != null) {
        deleteSocketDir(sockDir);
        SOCKET_DIRS.remove(sockDir);
      }
    }
  }

  private static void deleteSocketDir(Path sockDir) {
    try {
      Files.deleteIfExists(sockDir.resolve("w.sock"));
      Files.deleteIfExists(sockDir);
    } catch (IOException e) {
      // only an empty directory can be left, and only when the JVM is killed
    }
  }

  /**
   * Kills every worker of this process and its process group, leaving the threads that talk to them
   * to find them dead (the run was interrupted).
   */
  public static void terminateAll() {
    LAUNCHING.forEach(Process::destroyForcibly);
    LIVE.forEach(WorkerProcess::terminate);
  }

  /** Kills the worker's process group; the thread reading its replies finds it dead. */
  private void terminate() {
    killedByUs = true;
    if (SETSID && process.isAlive()) {
      try {
        new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid()).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
      } catch (IOException e) {
        // the JVM's own kill below still ends the worker
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /** This JVM's class path with every entry absolute: the worker's working directory is the run directory. */
  private static String absoluteClassPath() {
    List<String> entries = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      if (!e.isEmpty()) {
        entries.add(Path.of(e).toAbsolutePath().toString());
      }
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  @Override
  public List<Done> run(List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) throws KernelDeath {
    if (units.isEmpty()) {
      return List.of(); // a Run of nothing would have no Answered to wait for
    }
    long first = nextId;
    nextId += units.size();
    logMark = log.toFile().length();
    send(new Protocol.Run(first, units, guarded));
    List<Done> done = new ArrayList<>();
    int i = 0;
    java.util.function.LongSupplier running = answers().<java.util.function.LongSupplier>map(l -> l::running).orElse(() -> 0);
    while (true) {
      Protocol.Reply r;
      try {
        r = next(deadline, "running the unit", running);
      } catch (KernelDeath d) {
        // the answers it kept and had not sent yet, up to the unit that was running
        for (String line : answers().map(l -> l.lines(first)).orElse(List.of())) {
          if (i < units.size() && Wire.read(line, Protocol.Reply.class) instanceof Protocol.Answered a && a.id() == first + i) {
            done.add(new Done(a.answer(), a.micros()));
            i = Protocol.nextUnit(i, units, guarded, a.answer());
          }
        }
        forgetAnswers();
        throw d.after(done);
      }
      if (r instanceof Protocol.Answered a && a.id() == first + i) {
        done.add(new Done(a.answer(), a.micros()));
        i = Protocol.nextUnit(i, units, guarded, a.answer());
        if (i >= units.size()) {
          return done;
        }
      }
    }
  }

  /** The worker's answer log, once it has made it. */
  private Optional<AnswerLog> answers() {
    if (answerLog == null) {
      answerLog = AnswerLog.open(AnswerLog.beside(log)).orElse(null);
    }
    return Optional.ofNullable(answerLog);
  }

  private AnswerLog answerLog;
  /** The worker's step file, mapped here once it is ready; null before (then it is read by its name). */
  private StepFile steps;

  /**
   * Maps the answer log and the step file the worker made as it became ready, then deletes their
   * names: they stay readable here and in the worker while either maps them, and a run that ends in
   * any way (a parent killed with SIGKILL too) leaves neither in the report dir.
   */
  private void adoptFiles() {
    answers();
    steps = StepFile.open(StepFile.beside(log)).orElse(null);
    forgetAnswers();
    try {
      Files.deleteIfExists(StepFile.beside(log));
    } catch (IOException e) {
      // a leftover step file is harmless, and the next run into the dir deletes it
    }
  }

  /** The step the worker was at, as it told it last. */
  private Optional<String> lastStep() {
    return steps != null ? steps.last() : StepFile.read(StepFile.beside(log));
  }

  /** Deletes the answer log's name (it is read through its mapping, if at all). */
  private void forgetAnswers() {
    try {
      Files.deleteIfExists(AnswerLog.beside(log));
    } catch (IOException e) {
      // a leftover answer log is harmless, and the next run into the dir deletes it
    }
  }

  private void send(Protocol.Request request) {
    ByteBuffer b = ByteBuffer.wrap((Wire.write(request) + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      while (b.hasRemaining()) {
        if (channel.write(b) == 0) {
          Thread.onSpinWait(); // the worker's socket buffer is full: it is reading, or dead (then the read says so)
          if (!process.isAlive()) {
            return;
          }
        }
      }
    } catch (IOException e) {
      // the worker is dead; the next read reports how it died
    }
  }

  /** The next line from the worker, {@link #EOF} when it closed the socket, or null after {@code deadline}. */
  /**
   * How often the parent looks at which unit runs while it waits: a unit's deadline starts when the
   * parent sees it start, this much late at most.
   */
  private static final long PROGRESS_POLL_MS = 100;

  /**
   * The next line, {@link #EOF}, or null once {@code deadline} passed with no line and no change of
   * {@code progress} (the unit running: the deadline restarts when another one starts).
   */
  private String readLine(Duration deadline, java.util.function.LongSupplier progress) throws IOException {
    long seen = progress.getAsLong();
    long until = System.nanoTime() + deadline.toNanos();
    while (true) {
      for (int i = head + scanned; i < tail; i++) {
        if (received[i] == '\n') {
          String line = new String(received, head, i - head, StandardCharsets.UTF_8);
          head = i + 1;
          scanned = 0;
          return line;
        }
      }
      scanned = tail - head;
      long now = System.nanoTime();
      long at = progress.getAsLong();
      if (at != seen) {
        seen = at;
        until = now + deadline.toNanos();
      }
      long left = (until - now) / 1_000_000;
      if (left <= 0) {
        return null;
      }
      selector.select(Math.min(left, PROGRESS_POLL_MS));
      selector.selectedKeys().clear();
      if (tail == received.length) {
        if (head > 0) {
          System.arraycopy(received, head, received, 0, tail - head);
          tail -= head;
          head = 0;
        } else {
          received = java.util.Arrays.copyOf(received, received.length * 2);
        }
      }
      int n = channel.read(ByteBuffer.wrap(received, tail, received.length - tail));
      if (n < 0) {
        return EOF;
      }
      tail += n;
    }
  }

  private Protocol.Reply next(Duration deadline, String doing) throws KernelDeath {
    return next(deadline, doing, () -> 0);
  }

  private Protocol.Reply next(Duration deadline, String doing, java.util.function.LongSupplier progress) throws KernelDeath {
    String line;
    try {
      line = readLine(deadline, progress);
    } catch (IOException e) {
      line = EOF;
    }
    if (line == null) {
      kill();
      throw new KernelDeath(new dev.opcheck4j.api.Cause.Timeout(deadline.toSeconds()), "no answer after " + seconds(deadline) + " while " + doing
              + "; the worker and its process group were killed",
          List.of(
              Fact.of("deadline", seconds(deadline) + " (--timeout SECONDS, or \"timeout\" for the op in the spec)"),
              Fact.of("worker output", tail())), lastStep());
    }
    if (line.equals(EOF)) {
      throw death();
    }
    return Wire.read(line, Protocol.Reply.class);
  }

  private KernelDeath death() {
    int status;
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        kill();
      }
      status = process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = -1;
    }
    LIVE.remove(this);
    closeChannel();
    Path errorFile = dir.resolve("hs_err_pid" + process.pid() + ".log");
    List<Fact> facts = new ArrayList<>();
    Optional<ErrorFile> hs = ErrorFile.read(errorFile);
    String cause = hs.map(ErrorFile::cause).orElse(statusText(status));
    String rootCause = rootCause();
    if (!rootCause.isEmpty()) {
      facts.add(Fact.of("root cause", rootCause));
    }
    facts.add(Fact.of("exit status", status + (status > 128 ? " (signal " + (status - 128) + ", "
        + signalName(status - 128) + ")" : hs.isPresent() ? " (after the JVM wrote its error file)" : "")));
    hs.ifPresent(h -> {
      if (!h.frames().isEmpty()) {
        facts.add(Fact.of("native frames", String.join(" | ", h.frames())));
      }
      facts.add(Fact.of("error file", errorFile.toAbsolutePath()));
    });
    facts.add(Fact.of("worker output", tail()));
    String signal = hs.map(h -> h.cause().split(" ")[0]).filter(w -> w.startsWith("SIG"))
        .orElse(status > 128 ? signalName(status - 128) : "exit " + status);
    return new KernelDeath(new dev.opcheck4j.api.Cause.Crash(signal), cause, facts, lastStep());
  }

  /**
   * What the worker wrote while the exchange in flight ran, without the JVM's crash banner (its
   * {@code #} lines): libtorch's error text, "terminate called after throwing ...", an abort or
   * assertion message. The last {@value #ROOT_CAUSE_LINES} such lines, joined with " | ".
   */
  private String rootCause() {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long from = Math.max(logMark, f.length() - 16_384);
      byte[] buf = new byte[(int) Math.max(0, f.length() - from)];
      f.seek(from);
      f.readFully(buf);
      List<String> lines = new ArrayList<>();
      for (String l : new String(buf, StandardCharsets.UTF_8).split("\n")) {
        String t = l.strip();
        if (!t.isEmpty() && !t.startsWith("#")) {
          lines.add(t.length() > 300 ? t.substring(0, 300) + "..." : t);
        }
      }
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - ROOT_CAUSE_LINES), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }

  private static final int ROOT_CAUSE_LINES = 4;

  private String statusText(int status) {
    if (status > 128) {
      int sig = status - 128;
      String name = signalName(sig);
      if (sig == 9 && !killedByUs) {
        return "killed by SIGKILL from outside: most likely the OS's out-of-memory killer";
      }
      if (sig == 11) {
        return "killed by SIGSEGV with no JVM error file (a native stack overflow, e.g. unbounded recursion, leaves none)";
      }
      return "killed by " + name + (sig == 6 ? " (abort(), or std::terminate from an uncaught C++ exception)" : "");
    }
    return "the worker exited with status " + status + " in the middle of the unit (a kernel called exit("
        + status + ")?)";
  }

  private static String signalName(int sig) {
    return switch (sig) {
      case 4 -> "SIGILL";
      case 6 -> "SIGABRT";
      case 7 -> "SIGBUS";
      case 8 -> "SIGFPE";
      case 9 -> "SIGKILL";
      case 11 -> "SIGSEGV";
      case 15 -> "SIGTERM";
      default -> "signal " + sig;
    };
  }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms / 1000.0 + " s";
  }

  /** The last lines the worker printed, joined with " | ", each shortened to 160 characters. */
  private String tail() {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long from = Math.max(0, f.length() - 4096);
      byte[] buf = new byte[(int) (f.length() - from)];
      f.seek(from);
      f.readFully(buf);
      String[] lines = new String(buf, StandardCharsets.UTF_8).split("\n");
      List<String> last = new ArrayList<>();
      for (int i = Math.max(from > 0 ? 1 : 0, lines.length - 6); i < lines.length; i++) {
        String l = lines[i].strip();
        if (!l.isEmpty()) {
          last.add(l.length() > 160 ? l.substring(0, 160) + "..." : l);
        }
      }
      return last.isEmpty() ? "(nothing)" : String.join(" | ", last) + "  (all of it: " + log.toAbsolutePath() + ")";
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  /** Kills the worker's whole process group, then the worker. */
  public void kill() {
    terminate();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (archiveTmp != null) {
      archive.abandoned(archiveTmp);
      archiveTmp = null;
    }
    LIVE.remove(this);
    closeChannel();
  }

  private void closeChannel() {
    try {
      selector.close();
      channel.close();
    } catch (IOException e) {
      // already closed
    }
  }

  public long pid() {
    return process.pid();
  }

  /**
   * Asks the worker to stop and ends it. Once it said {@link Protocol.Bye} (it has flushed its output) it is
   * killed: libtorch's exit handlers take about 0.1 s and leave nothing behind that the run needs.
   * A worker writing the class-data archive exits by itself instead, as the archive is written at exit.
   */
  @Override
  public void close() {
    if (process.isAlive()) {
      send(new Protocol.Stop());
      try {
        if (archiveTmp != null) {
          if (process.waitFor(60, TimeUnit.SECONDS)) {
            archive.written(archiveTmp, process.exitValue());
            archiveTmp = null;
          }
        } else {
          for (Protocol.Reply r = next(Duration.ofSeconds(5), "stopping"); !(r instanceof Protocol.Bye);
              r = next(Duration.ofSeconds(5), "stopping")) {
            // replies to nothing in flight: skipped
          }
        }
      } catch (KernelDeath d) {
        // it exited (or hung) on the way out: the kill below ends it either way
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      kill();
    }
    LIVE.remove(this);
    closeChannel();
    try {
      Files.deleteIfExists(StepFile.beside(log)); // a worker that never became ready made it, or not
    } catch (IOException e) {
      // a leftover step file is harmless, and the next run into the dir deletes it
    }
    forgetAnswers();
  }

  /**
   * What a HotSpot error file says about a crash.
   *
   * @param cause the signal line, e.g. {@code SIGSEGV (0xb) at pc=0x00007f..., pid=123, tid=124}
   * @param frames the top native frames
   */
  public record ErrorFile(String cause, List<String> frames) {
    static Optional<ErrorFile> read(Path file) {
      if (!Files.isRegularFile(file)) {
        return Optional.empty();
      }
      List<String> lines;
      try {
        lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
      } catch (IOException e) {
        return Optional.empty();
      }
      String cause = null;
      List<String> frames = new ArrayList<>();
      boolean inFrames = false;
      for (int i = 0; i < lines.size(); i++) {
        String l = lines.get(i);
        if (cause == null && l.startsWith("# A fatal error has been detected")) {
          for (int j = i + 1; j < lines.size() && cause == null; j++) {
            String c = lines.get(j).replaceFirst("^#\\s*", "").strip();
            if (!c.isEmpty()) {
              cause = c;
            }
          }
        } else if (cause == null && l.startsWith("# There is insufficient memory")) {
          cause = "the JVM ran out of native memory: " + l.substring(1).strip();
        } else if (l.startsWith("Native frames:")) {
          inFrames = true;
        } else if (inFrames) {
          if (l.isBlank() || frames.size() == 6) {
            inFrames = false;
          } else {
            frames.add(l.strip().replaceAll("\\s+", " "));
          }
        }
      }
      if (frames.isEmpty()) {
        for (int i = 0; i < lines.size() - 1; i++) {
          if (lines.get(i).startsWith("# Problematic frame:")) {
            frames.add(lines.get(i + 1).replaceFirst("^#\\s*", "").strip());
          }
        }
      }
      return Optional.of(new ErrorFile(cause == null ? "the JVM crashed (see the error file)" : cause, frames));
    }
  }
}
