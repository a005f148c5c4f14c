package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.run.link.AnswerLog;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.LineChannel;
import dev.opcheck4j.run.link.Replies;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.StepFile;
import dev.opcheck4j.run.link.Wire;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * One worker JVM, seen from the parent: launched ({@link WorkerLaunch}) and kept among the {@link
 * LiveWorkers} until it ends, spoken to in {@link Protocol} messages, one {@link LineChannel} line
 * each, and reported on when it dies ({@link CrashReport}).
 */
public final class WorkerProcess implements Kernels {
  /**
   * Told a worker's number once its JVM runs and a stop reaches it, before it connects: what a test of
   * stopping a starting worker waits for (instead of polling the process table).
   */
  public static volatile IntConsumer launched = n -> {};

  private final WorkerLaunch jvm;
  private final Process process;
  private final Path dir;
  private final Path log;
  private final LineChannel link;
  /** What a crash means beyond its signal, as the run's supervisor checks say. */
  private final CrashMeaning meaning;
  private final LiveWorkers.Member member = new LiveWorkers.Member(this::terminate, this::kill);
  private long nextId;
  /** The spec entries this worker was sent ({@link Protocol.OpenOp#ref()}): each goes once. */
  private final java.util.Set<Integer> opened = new java.util.HashSet<>();
  /** The log's length when the exchange in flight was sent: what follows is that exchange's output. */
  private long logMark;
  private volatile boolean killedByUs;
  /** Where this worker writes the class-data archive as it exits, or null. */
  private Path archiveTmp;
  /** The worker's answer log, mapped here once it made it; null before. */
  private AnswerLog answerLog;
  /** The worker's step file, mapped here once it is ready; null before (then it is read by its name). */
  private StepFile steps;

  private WorkerProcess(WorkerLaunch jvm, Path dir, CrashMeaning meaning) throws IOException {
    this.jvm = jvm;
    this.meaning = meaning;
    this.process = jvm.process();
    this.dir = dir;
    this.log = jvm.log();
    this.archiveTmp = jvm.archiveWriting();
    this.link = new LineChannel(jvm.channel(), process::isAlive, () -> jvm.killedStalled(dir));
  }

  /**
   * Starts a worker and has it load {@code init}'s libraries.
   *
   * @param dir where its log and JVM error file go (also its working directory)
   * @param loading called with each library's path as the worker starts loading it
   * @return the worker and what it loaded, or how it died while loading (a static initializer crashed)
   * @throws LoadError when a library could not be loaded, or the worker speaks another protocol version
   */
  public static Started start(Path dir, int number, Protocol.Init init, Duration deadline, Consumer<String> loading,
      CrashMeaning meaning) throws LoadError {
    return start(dir, number, init, deadline, loading, meaning, Protocol.VERSION);
  }

  /** {@link #start(Path, int, Protocol.Init, Duration, Consumer, CrashMeaning)} speaking protocol {@code version}. */
  public static Started start(Path dir, int number, Protocol.Init init, Duration deadline, Consumer<String> loading,
      CrashMeaning meaning, int version) throws LoadError {
    WorkerProcess w = connected(dir, WorkerLaunch.start(dir, number, init, n -> launched.accept(n)), meaning);
    w.send(new Protocol.Start(version, init));
    String library = null;
    while (true) {
      Heard heard = w.next(deadline, "loading " + (library == null ? "libtorch" : library), () -> 0);
      Replies.Reply r = heard.reply();
      if (heard.death() != null) {
        return new Started(null, null, heard.death());
      } else if (r instanceof Replies.Loading l) {
        library = l.library();
        loading.accept(library);
      } else if (r instanceof Replies.Ready ready) {
        w.adoptFiles();
        return new Started(w, ready.info(), null);
      } else if (r instanceof Replies.LoadFailed f) {
        w.close();
        throw new LoadError(f.message());
      } else if (r instanceof Replies.Mismatch m) {
        w.close();
        throw new LoadError(m.describe(version));
      } else {
        throw new IllegalStateException("unexpected reply while loading: " + r);
      }
    }
  }

  /** A worker with what it loaded; or, both null, how it died while loading ({@code died}, else null). */
  public record Started(WorkerProcess worker, WorkerInfo info, Death died) {}

  /** A library the worker could not load (its message names it). */
  public static final class LoadError extends Exception {
    LoadError(String message) {
      super(message);
    }
  }

  /** The launched worker's handle, among the live workers (none joins them while the JVM exits). */
  private static WorkerProcess connected(Path dir, WorkerLaunch jvm, CrashMeaning meaning) {
    WorkerProcess w;
    try {
      w = new WorkerProcess(jvm, dir, meaning);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!LiveWorkers.connected(jvm.process(), w.member)) {
      w.kill();
      throw new IllegalStateException("no worker starts while the JVM exits");
    }
    return w;
  }

  /**
   * Kills every worker of this process and its process group, leaving the threads that talk to them
   * to find them dead (the run was interrupted).
   */
  public static void terminateAll() {
    LiveWorkers.terminateAll();
  }

  /** Kills the worker's process group; the thread reading its replies finds it dead. */
  private void terminate() {
    killedByUs = true;
    jvm.killGroup();
  }

  @Override
  public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
    if (units.isEmpty()) {
      return Exchange.none(); // a Run of nothing would have no End to wait for
    }
    long first = nextId;
    nextId += units.size();
    logMark = log.toFile().length();
    Protocol.Run run = new Protocol.Run(first, opens.stream().filter(o -> opened.add(o.ref())).toList(), units, guarded);
    send(run);
    Map<Long, Done> answers = new HashMap<>();
    long begun = Death.UNKNOWN;
    LongSupplier running = answers().<LongSupplier>map(l -> l::running).orElse(() -> 0);
    while (true) {
      Heard heard = next(deadline, "running the unit", running);
      if (heard.death() != null) {
        // the answers it kept and had not sent yet, up to the unit that was running
        for (String line : answers().map(l -> l.lines(first)).orElse(List.of())) {
          if (Wire.read(line, Replies.Reply.class) instanceof Replies.Answered a) {
            answers.put(a.id(), new Done(a.answer(), a.micros()));
          }
        }
        long told = answers().map(AnswerLog::running).filter(id -> id >= first).orElse(begun);
        forgetAnswers();
        // the unit in flight is the one the worker said it ran; when it had answered that one, or said
        // none, the one it runs after those answered, as the run's guards decide
        long inFlight = told != Death.UNKNOWN && !answers.containsKey(told) ? told : Kernels.inFlight(run, answers);
        return new Exchange(first, answers, Optional.of(heard.death().in(inFlight)));
      }
      if (heard.reply() instanceof Replies.Answered a && a.id() >= first) {
        answers.put(a.id(), new Done(a.answer(), a.micros()));
      } else if (heard.reply() instanceof Replies.Begin b && b.id() >= first) {
        begun = b.id();
      } else if (heard.reply() instanceof Replies.End e && e.id() == first) {
        Exchange x = new Exchange(first, answers, Optional.empty()); // a unit's sanitizer report ends it there
        return jvm.sanitized().readsUnits() ? UnitReports.afterEnd(x, log, logMark, jvm.sanitized(), meaning) : x;
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

  /**
   * Maps the answer log and the step file the worker made as it became ready, then deletes their
   * names: they stay readable here and in the worker while either maps them, and a run that ends in
   * any way (a parent killed with SIGKILL too) leaves neither in the report dir.
   */
  private void adoptFiles() {
    answers();
    steps = StepFile.open(StepFile.beside(log)).orElse(null);
    forgetAnswers();
    forgetSteps();
  }

  /** The step the worker was at, as it told it last. */
  private Optional<String> lastStep() {
    return toldStep().map(meaning::shown);
  }

  /** The step as the worker told it, guard pages included. */
  private Optional<String> toldStep() {
    return steps != null ? steps.last() : StepFile.read(StepFile.beside(log));
  }

  /** Deletes the step file's name (it is read through its mapping, if at all). */
  private void forgetSteps() {
    try {
      Files.deleteIfExists(StepFile.beside(log));
    } catch (IOException e) {
      // a leftover step file is harmless, and the next run into the dir deletes it
    }
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
    link.send(Wire.write(request));
  }

  /** A reply heard from the worker, or (reply null) how it died or hung instead. */
  private record Heard(Replies.Reply reply, Death death) {}

  private Heard next(Duration deadline, String doing, LongSupplier progress) {
    Optional<String> line;
    try {
      line = link.readLine(deadline, progress);
    } catch (IOException e) {
      return new Heard(null, death());
    }
    if (line.isEmpty()) {
      kill();
      return new Heard(null, new Death(new Cause.Timeout(deadline.toSeconds()), "no answer after " + seconds(deadline)
          + " while " + doing + "; the worker and its process group were killed",
          List.of(
              Fact.of("deadline", seconds(deadline) + " (--timeout SECONDS, or \"timeout\" for the op in the spec)"),
              Fact.of("worker output", WorkerOutput.read(log, logMark).tail())), lastStep()));
    }
    return new Heard(Wire.read(line.get(), Replies.Reply.class), null);
  }

  private Death death() {
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
    LiveWorkers.ended(member);
    link.close();
    // the root cause is what the unit running printed, never what an earlier unit of the exchange did
    long unitMark = answers().map(AnswerLog::outputAtStart).filter(m -> m >= logMark).orElse(logMark);
    CrashReport report = new CrashReport(status, killedByUs, ErrorFile.read(ErrorFile.of(dir, process.pid())),
        WorkerOutput.read(log, unitMark));
    return UnitReports.death(report, log, unitMark, jvm.sanitized(), meaning, toldStep().orElse(""), lastStep());
  }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms / 1000.0 + " s";
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
      jvm.archive().abandoned(archiveTmp);
      archiveTmp = null;
    }
    LiveWorkers.ended(member);
    link.close();
  }

  /** Whether this worker has run a unit. */
  boolean ran() {
    return nextId > 0;
  }

  public long pid() {
    return process.pid();
  }

  /**
   * Asks the worker to stop and ends it. Once it said {@link Replies.Bye} (it has flushed its output) it is
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
            jvm.archive().written(archiveTmp, process.exitValue());
            archiveTmp = null;
          }
        } else {
          // replies to nothing in flight are skipped; a worker that exits (or hangs) on the way out is
          // ended by the kill below either way
          for (Heard h = next(Duration.ofSeconds(5), "stopping", () -> 0);
              h.death() == null && !(h.reply() instanceof Replies.Bye); h = next(Duration.ofSeconds(5), "stopping", () -> 0)) {
            // skipped
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      kill();
    }
    LiveWorkers.ended(member);
    link.close();
    forgetSteps(); // a worker that never became ready made it, or not
    forgetAnswers();
  }
}
