package dev.opcheck4j.torch;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.OperatorHandleOptional;
import org.bytedeco.pytorch.OperatorName;

/**
 * opcheck4j's C++ companion library ({@code native-ops/src/main/companion}): what the harness needs from
 * libtorch that Java cannot have through the JavaCPP presets (a subclass of a C++ class, an allocator).
 * It is classic {@code TORCH_LIBRARY} code built with the runtime's exact headers, and Java reaches it
 * through the dispatcher only, as operators of the {@code opcheck4j} namespace.
 *
 * <p>A worker loads it before the user's libraries. Where it cannot be loaded (not built, built with other
 * headers, another ABI number), {@link #state()} says why, and the checks that need it say Skipped with
 * that reason: nothing else in the run depends on it.
 */
public final class Companion {
  /** The companion's ABI number this harness was written for ({@code kCompanionAbi} in companion.cpp). */
  public static final long ABI = 1;

  /** The file name the native-ops build gives it. */
  public static final String FILE_NAME = "libopcheck4j_companion.so";

  /** Where the companion stands in this process. */
  public sealed interface State permits Loaded, Unavailable {}

  /** Loaded, and its handshake answered this harness's ABI number. */
  public record Loaded(Path file) implements State {}

  /** Not loaded; {@code reason} says why, in words a report can show after "the companion library is unavailable: ". */
  public record Unavailable(String reason) implements State {}

  private static State state;

  private Companion() {}

  /** Loads the companion on first use (libtorch first); later calls return the same state. */
  public static synchronized State state() {
    if (state == null) {
      state = load();
    }
    return state;
  }

  private static State load() {
    TorchRuntime runtime = TorchRuntime.get();
    Optional<Path> file;
    try {
      file = locate();
    } catch (IOException e) {
      return new Unavailable("cannot unpack " + FILE_NAME + " from the harness jar: " + e.getMessage());
    }
    if (file.isEmpty()) {
      return new Unavailable(FILE_NAME + " is not in this build (native-ops builds it with the runtime's headers)");
    }
    Optional<String> problem = OpLibrary.linkageProblem(runtime, file.get());
    if (problem.isPresent()) {
      return new Unavailable(problem.get());
    }
    try {
      System.load(file.get().toString());
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      return new Unavailable("loading " + file.get() + " failed: " + NativeStrings.firstLine(e.getMessage()));
    }
    long abi;
    try {
      abi = handshake();
    } catch (RuntimeException e) {
      return new Unavailable("its handshake failed: " + NativeStrings.firstLine(e.getMessage()));
    }
    if (abi != ABI) {
      return new Unavailable(file.get() + " answers ABI " + abi + ", this harness needs " + ABI + ": rebuild native-ops");
    }
    return new Loaded(file.get());
  }

  private static long handshake() {
    OperatorHandleOptional found = Dispatcher.singleton().findSchema(new OperatorName("opcheck4j::companion_abi", ""));
    if (found == null || !found.has_value()) {
      throw new IllegalStateException("it registers no opcheck4j::companion_abi");
    }
    IValueVector stack = new IValueVector();
    new OperatorHandle(found.get()).callBoxed(stack);
    return stack.get(0).toInt();
  }

  /** {@code opcheck4j::take_shim_error}, found on first use; empty when the companion is not loaded or lacks it. */
  private static Optional<OperatorHandle> shimError;

  /**
   * The message of the last error libtorch's stable-ABI shim caught on this thread, cleared as it is read
   * ({@code shim_errors.cpp}); empty when there is none, or when the companion is unavailable.
   */
  public static Optional<String> takeShimError() {
    Optional<OperatorHandle> op = shimErrorOp();
    if (op.isEmpty()) {
      return Optional.empty();
    }
    IValueVector stack = new IValueVector();
    op.get().callBoxed(stack);
    // JavaCPP gives an empty std::string's bytes as null
    org.bytedeco.javacpp.BytePointer bytes = stack.get(0).toStringRef();
    String message = bytes == null ? "" : bytes.getString(java.nio.charset.StandardCharsets.UTF_8);
    return message.isEmpty() ? Optional.empty() : Optional.of(message);
  }

  private static synchronized Optional<OperatorHandle> shimErrorOp() {
    if (shimError == null) {
      if (!(state() instanceof Loaded)) {
        shimError = Optional.empty();
      } else {
        OperatorHandleOptional found = Dispatcher.singleton().findSchema(new OperatorName("opcheck4j::take_shim_error", ""));
        if (found == null || !found.has_value()) {
          shimError = Optional.empty();
        } else {
          OperatorHandle handle = new OperatorHandle(found.get());
          // kept for the process's life, out of any unit's PointerScope
          handle.retainReference();
          shimError = Optional.of(handle);
        }
      }
    }
    return shimError;
  }

  /**
   * The companion's file: {@code opcheck4j.companion} if set, else the harness's own resource, used where it
   * lies when it is a file (a build tree) and unpacked once per content into the temp dir when it is in a jar.
   */
  /** The system property that names a companion file to load instead of the harness's own. */
  public static final String PROPERTY = "opcheck4j.companion";

  /** The companion file {@link #PROPERTY} names, if it names one (read without loading anything). */
  public static Optional<Path> configured() {
    String set = System.getProperty(PROPERTY);
    return set == null || set.isBlank() ? Optional.empty() : Optional.of(Path.of(set));
  }

  private static Optional<Path> locate() throws IOException {
    String set = System.getProperty(PROPERTY);
    if (set != null && !set.isBlank()) {
      Path p = Path.of(set);
      return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
    }
    URL url = Companion.class.getResource("/dev/opcheck4j/companion/" + Loader.getPlatform() + "/" + FILE_NAME);
    if (url == null) {
      return Optional.empty();
    }
    if (url.getProtocol().equals("file")) {
      try {
        return Optional.of(Path.of(url.toURI()));
      } catch (URISyntaxException e) {
        throw new IOException(e.getMessage(), e);
      }
    }
    byte[] bytes;
    try (InputStream in = url.openStream()) {
      bytes = in.readAllBytes();
    }
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "opcheck4j-companion-" + Integer.toHexString(java.util.Arrays.hashCode(bytes)));
    Path target = dir.resolve(FILE_NAME);
    if (!Files.isRegularFile(target) || Files.size(target) != bytes.length) {
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, "companion", ".tmp");
      Files.write(tmp, bytes);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
    return Optional.of(target);
  }
}
