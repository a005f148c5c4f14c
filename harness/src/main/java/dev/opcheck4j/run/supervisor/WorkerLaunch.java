package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.worker.Worker;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * A worker JVM as launched and connected: started in its own process group (so a kill takes every
 * thread and child with it), its output appended to {@code worker-N.log} and its JVM error file written
 * to the run directory, on the class path of this JVM (its presets jars replaced by those of the runtime
 * the run asks for), mapping or writing the class-data archive.
 *
 * @param process the worker JVM
 * @param channel its end of the socket, connected
 * @param log where its output goes
 * @param archive the class-data archive it writes as it exits, or null when it writes none
 * @param archiveWriting where it writes that archive, or null
 * @param sanitized how it was started for the sanitizers its libraries were built with
 */
record WorkerLaunch(Process process, SocketChannel channel, Path log, WorkerArchive archive, Path archiveWriting,
    SanitizedWorkers sanitized) {
  private static final boolean SETSID = Files.isExecutable(Path.of("/usr/bin/setsid"));
  private static final long CONNECT_SECONDS = 120;

  /** The name of worker {@code number}'s own temporary folder ({@code $TMPDIR}) in the run's directory. */
  private static String temporaryFolder(int number) {
    return "worker-" + number + ".tmp";
  }

  /**
   * Starts worker {@code number} of a run with {@code workers} in all, in {@code dir} (its working
   * directory), and waits until it connects.
   *
   * @param launched told the worker's number once its JVM runs and a stop reaches it, before it connects
   * @throws IllegalStateException when it did not start, or the JVM exits
   */
  static WorkerLaunch start(Path dir, int number, Protocol.Init init, IntConsumer launched) {
    int workers = init.workers();
    Path socket = null;
    try {
      Files.createDirectories(dir);
      socket = LiveWorkers.socket();
      try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
        server.bind(UnixDomainSocketAddress.of(socket));
        Path log = dir.resolve("worker-" + number + ".log");
        String classPath = onRuntime(absoluteClassPath(), init.runtime());
        Optional<WorkerArchive> archive = WorkerArchive.configured(classPath);
        WorkerArchive.Options cds = archive.map(WorkerArchive::options).orElse(new WorkerArchive.Options(List.of(), null));
        // a companion built with sanitizers (the harness's own test of it) is started for as a library is
        List<Path> loaded = new ArrayList<>(init.libraries());
        dev.opcheck4j.torch.Companion.configured().ifPresent(loaded::add);
        SanitizedWorkers sanitized = SanitizedWorkers.of(loaded);
        ProcessBuilder pb = new ProcessBuilder(command(dir, number, classPath, cds, socket, sanitized)).directory(dir.toFile())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        // libtorch's error log is how a stable-ABI kernel's real message is recovered (it goes to the
        // worker's log file, not to the console), so a caller's quieter level is not inherited
        pb.environment().remove("TORCH_CPP_LOG_LEVEL");
        // a temporary folder of the worker's own: libtorch's AOTInductor package loader extracts each package into
        // $TMPDIR and leaves it there when the package fails to load (run/worker/PackageUnits deletes what a unit
        // leaves; the run's directory deletes the folder when the run ends, a crashed worker's too)
        Path tmp = Files.createDirectories(dir.resolve(temporaryFolder(number)));
        // absolute: the worker runs in the run's directory, and a relative one would be read from there
        pb.environment().put("TMPDIR", tmp.toAbsolutePath().toString());
        // a package compiled for fixed shapes reads its inputs by those shapes: with this set, its code refuses
        // inputs of other shapes ("unmatched dim value") instead of running past their ends
        pb.environment().putIfAbsent("AOTI_RUNTIME_CHECK_INPUTS", "1");
        // workers that share the cores: libtorch's OpenMP threads (one per core in every worker) spin
        // after each parallel region, and in a two-worker run on two cores that spinning took a sixth
        // of the CPU time from the other worker. Waiting passively, a kernel still runs on every core.
        // A caller's own settings stand.
        if (workers > 1 && System.getenv("OMP_WAIT_POLICY") == null && System.getenv("GOMP_SPINCOUNT") == null) {
          pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
        }
        sanitized.configure(pb.environment(), dir);
        Process p = pb.start();
        LiveWorkers.launching(p);
        launched.accept(number);
        server.configureBlocking(false);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(CONNECT_SECONDS);
        while (true) {
          SocketChannel ch = server.accept();
          if (ch != null) {
            return cds.writing() != null ? new WorkerLaunch(p, ch, log, archive.get(), cds.writing(), sanitized)
                : new WorkerLaunch(p, ch, log, null, null, sanitized);
          }
          if (!p.isAlive() || System.nanoTime() > until) {
            p.destroyForcibly();
            LiveWorkers.failed(p);
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
      if (socket != null) {
        LiveWorkers.release(socket);
      }
    }
  }

  /** How long a crashing worker's JVM may take to write its error file. */
  static final int ERROR_LOG_SECONDS = 12;

  private static List<String> command(Path dir, int number, String classPath, WorkerArchive.Options cds, Path socket,
      SanitizedWorkers sanitized) {
    List<String> cmd = new ArrayList<>();
    if (SETSID) {
      cmd.add("/usr/bin/setsid");
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:ErrorFile=" + dir.toAbsolutePath().resolve(ErrorFile.PATTERN));
    cmd.add("-XX:-CreateCoredumpOnCrash");
    // a kernel that corrupted the heap can hang the JVM's own crash report (its symbol lookup mallocs): each step
    // of it gets a quarter of this, so the worker still dies of its signal in seconds, as a crash, not at the
    // unit's deadline as a hang (120 s by default, longer than the deadline)
    cmd.add("-XX:ErrorLogTimeout=" + ERROR_LOG_SECONDS);
    cmd.addAll(Worker.JVM_OPTIONS);
    cmd.add("-Dopcheck4j.worker=" + number);
    dev.opcheck4j.torch.Companion.configured().ifPresent(c -> cmd.add("-D" + dev.opcheck4j.torch.Companion.PROPERTY + "=" + c));
    cmd.addAll(sanitized.jvmOptions());
    cmd.addAll(cds.jvm());
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(Worker.class.getName());
    cmd.add(socket.toString());
    return cmd;
  }

  /** This JVM's class path with every entry absolute: the worker's working directory is the run directory. */
  private static String absoluteClassPath() {
    List<String> entries = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        entries.add(Path.of(e).toAbsolutePath().toString());
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** {@code parent}'s class path with its presets jars replaced by {@code runtime}'s; itself when none are given. */
  private static String onRuntime(String parent, List<Path> runtime) {
    return dev.opcheck4j.run.plan.LibtorchRuntime.replacing(parent, runtime);
  }

  /**
   * Whether the worker, started in {@code dir}, is crashing and its JVM's crash report stalled (a step timed out: the
   * crash left a lock held that the report needs, glibc's allocator's when a kernel damaged the heap); then its
   * process group is killed now. The report would wait out every step that allocates, up to -XX:ErrorLogTimeout
   * (12 s) a death, and write no more than it has: the signal and the problematic frame ({@link ErrorFile#stalled}).
   */
  boolean killedStalled(Path dir) {
    java.time.Instant started = process.info().startInstant().orElse(java.time.Instant.MIN);
    if (!ErrorFile.stalled(ErrorFile.of(dir, process.pid()), started)) {
      return false;
    }
    killGroup();
    return true;
  }

  /** Kills the worker's process group (when it has one of its own), its descendants and the worker. */
  void killGroup() {
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
}
