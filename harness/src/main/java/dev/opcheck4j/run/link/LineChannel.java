package dev.opcheck4j.run.link;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Lines of text over the parent's end of a worker's socket, one message a line. Lines are read in the
 * calling thread (no reader thread to hand them over): one wake-up less per unit.
 */
public final class LineChannel {
  /**
   * How often a read looks at the progress it is given while it waits: a unit's deadline starts when
   * the parent sees it start, this much late at most.
   */
  private static final long PROGRESS_POLL_MS = 100;

  private final SocketChannel channel;
  private final Selector selector;
  private final BooleanSupplier peerAlive;
  private final BooleanSupplier peerDying;
  /** What the worker sent and was not read yet: bytes {@code head} to {@code tail}, searched up to {@code head + scanned}. */
  private byte[] received = new byte[1 << 16];
  private int head;
  private int tail;
  private int scanned;

  /**
   * @param peerAlive whether the process at the other end still runs (a send to a dead one gives up)
   * @param peerDying asked while a read waits with nothing to read: whether the process at the other end is
   *     dying, though its socket is still open (a read then gives up as if it had closed it)
   */
  public LineChannel(SocketChannel channel, BooleanSupplier peerAlive, BooleanSupplier peerDying) throws IOException {
    this.channel = channel;
    this.peerAlive = peerAlive;
    this.peerDying = peerDying;
    channel.configureBlocking(false);
    this.selector = Selector.open();
    channel.register(selector, SelectionKey.OP_READ);
  }

  /** Sends {@code line}; when the other end is dead, as much as it took (the next read says it is gone). */
  public void send(String line) {
    ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      while (b.hasRemaining()) {
        if (channel.write(b) == 0) {
          Thread.onSpinWait(); // the worker's socket buffer is full: it is reading, or dead (then the read says so)
          if (!peerAlive.getAsBoolean()) {
            return;
          }
        }
      }
    } catch (IOException e) {
      // the worker is dead; the next read reports how it died
    }
  }

  /**
   * The next line, or empty once {@code deadline} passed with no line and no change of {@code
   * progress} (the unit running: the deadline restarts when another one starts).
   *
   * @throws EOFException when the other end closed the socket (or died, or is dying)
   */
  public Optional<String> readLine(Duration deadline, LongSupplier progress) throws IOException {
    long seen = progress.getAsLong();
    long until = System.nanoTime() + deadline.toNanos();
    while (true) {
      for (int i = head + scanned; i < tail; i++) {
        if (received[i] == '\n') {
          String line = new String(received, head, i - head, StandardCharsets.UTF_8);
          head = i + 1;
          scanned = 0;
          return Optional.of(line);
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
        return Optional.empty();
      }
      selector.select(Math.min(left, PROGRESS_POLL_MS));
      selector.selectedKeys().clear();
      if (tail == received.length) {
        if (head > 0) {
          System.arraycopy(received, head, received, 0, tail - head);
          tail -= head;
          head = 0;
        } else {
          received = Arrays.copyOf(received, received.length * 2);
        }
      }
      int n = channel.read(ByteBuffer.wrap(received, tail, received.length - tail));
      if (n < 0) {
        throw new EOFException("the worker closed its socket");
      }
      if (n == 0 && peerDying.getAsBoolean()) {
        throw new EOFException("the worker is dying");
      }
      tail += n;
    }
  }

  /** Closes the socket. */
  public void close() {
    try {
      selector.close();
      channel.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
