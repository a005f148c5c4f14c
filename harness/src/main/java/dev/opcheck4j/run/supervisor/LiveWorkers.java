package dev.opcheck4j.run.supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The worker JVMs of this process that have not ended, starting or connected, and the socket files of
 * those starting: a stop ({@link #terminateAll}) reaches every one, and as this JVM exits a reaper kills
 * them and deletes the sockets, so that none outlives it.
 */
final class LiveWorkers {
  private static final Set<Member> CONNECTED = ConcurrentHashMap.newKeySet();
  /** Worker JVMs started but not yet connected: a stop must reach them too, not wait until they load. */
  private static final Set<Process> LAUNCHING = ConcurrentHashMap.newKeySet();
  /** The sockets of workers being started: deleted at exit too, however the JVM ends. */
  private static final Set<Path> SOCKETS = ConcurrentHashMap.newKeySet();
  /** Set as the JVM exits: no worker starts after, so none outlives it. */
  private static volatile boolean exiting;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      exiting = true;
      CONNECTED.forEach(m -> m.kill.run());
      SOCKETS.forEach(LiveWorkers::delete);
    }, "opcheck4j-worker-reaper"));
  }

  private LiveWorkers() {}

  /** A connected worker: how a stop ends it (the thread reading its replies finds it dead), and how the reaper does. */
  static final class Member {
    private final Runnable terminate;
    private final Runnable kill;

    Member(Runnable terminate, Runnable kill) {
      this.terminate = terminate;
      this.kill = kill;
    }
  }

  /**
   * A path for a new worker's socket, in a new directory of its own: a short temporary one, as socket
   * paths are limited to about 108 bytes.
   *
   * @throws IllegalStateException while the JVM exits
   */
  static Path socket() throws IOException {
    if (exiting) {
      throw new IllegalStateException("no worker starts while the JVM exits");
    }
    Path socket = Files.createTempDirectory("opcheck4j-").resolve("w.sock");
    SOCKETS.add(socket);
    return socket;
  }

  /** Deletes {@code socket} and its directory: the worker connected, or failed to. */
  static void release(Path socket) {
    delete(socket);
    SOCKETS.remove(socket);
  }

  private static void delete(Path socket) {
    try {
      Files.deleteIfExists(socket);
      Files.deleteIfExists(socket.getParent());
    } catch (IOException e) {
      // only an empty directory can be left, and only when the JVM is killed
    }
  }

  /** A worker JVM started, not yet connected. */
  static void launching(Process process) {
    LAUNCHING.add(process);
  }

  /** A starting worker JVM that will never connect (it was killed). */
  static void failed(Process process) {
    LAUNCHING.remove(process);
  }

  /**
   * The worker started as {@code process} has connected, and is {@code member} from now on.
   *
   * @return false when the JVM exits: the caller kills it
   */
  static boolean connected(Process process, Member member) {
    CONNECTED.add(member);
    LAUNCHING.remove(process); // after joining CONNECTED, so terminateAll finds it in one set or the other
    return !exiting;
  }

  /** A connected worker that has ended. */
  static void ended(Member member) {
    CONNECTED.remove(member);
  }

  /** Kills every worker, starting or connected, leaving the threads that talk to them to find them dead. */
  static void terminateAll() {
    LAUNCHING.forEach(Process::destroyForcibly);
    CONNECTED.forEach(m -> m.terminate.run());
  }
}
