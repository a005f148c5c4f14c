package dev.opcheck4j.torch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.pytorch.global.torch;

/**
 * libtorch, loaded once per process through JavaCPP.
 *
 * <p>After JavaCPP's own load, libtorch_cpu is loaded again with RTLD_GLOBAL so that an op library
 * that does not declare a dependency on libtorch still resolves its symbols instead of failing.
 *
 * <p>libtorch's autograd fallback is set to "nothing" for the whole process: by default ("warn") the
 * outputs of an op with no autograd kernel get a placeholder grad_fn whose backward yields no
 * gradient, which would hide the very registrations the checks look at (opcheck does the same).
 *
 * <p>libtorch's errors carry no C++ stack trace here: by default each {@code c10::Error} records one,
 * and its message (what JavaCPP hands to Java, and what the stable ABI's shim logs) symbolizes it,
 * 4-6 ms of CPU per error raised, several per generated input a kernel rejects. The harness shows an
 * error's first line only, as Python's torch does unless {@code TORCH_SHOW_CPP_STACKTRACES} is set.
 */
public final class TorchRuntime {
  private static TorchRuntime instance;
  /** What makes each libtorch error's stack trace: an empty one. Held here so that libtorch can call it for as long as the process runs. */
  private static NoStackTrace noStackTrace;

  private static final class NoStackTrace extends org.bytedeco.pytorch.StringSupplier {
    private final org.bytedeco.javacpp.BytePointer empty = new org.bytedeco.javacpp.BytePointer("");

    @Override
    public org.bytedeco.javacpp.BytePointer call() {
      return empty;
    }
  }

  private final String torchVersion;
  private final String presetsVersion;
  private final Path libtorchDir;

  private TorchRuntime(String torchVersion, String presetsVersion, Path libtorchDir) {
    this.torchVersion = torchVersion;
    this.presetsVersion = presetsVersion;
    this.libtorchDir = libtorchDir;
  }

  /** Loads libtorch on first use; later calls return the same runtime. */
  public static synchronized TorchRuntime get() {
    if (instance == null) {
      instance = load();
    }
    return instance;
  }

  private static TorchRuntime load() {
    Loader.load(torch.class);
    torch.setAutogradFallbackMode(torch.AutogradFallbackMode.Nothing);
    // reads TORCH_CPP_LOG_LEVEL, as Python's torch does at import: libtorch logs every error a kernel
    // raises through the stable ABI (with a stack trace) although the harness reports it already
    torch.initLogging();
    if (System.getenv("TORCH_SHOW_CPP_STACKTRACES") == null || System.getenv("TORCH_SHOW_CPP_STACKTRACES").equals("0")) {
      noStackTrace = new NoStackTrace();
      torch.SetStackTraceFetcher(noStackTrace);
    }
    String platform = Loader.getPlatform();
    Path cpu;
    try {
      cpu = Path.of(Loader.cacheResource(torch.class, platform + "/libtorch_cpu.so").getPath());
    } catch (IOException e) {
      throw new IllegalStateException("cannot locate libtorch_cpu.so in the JavaCPP cache", e);
    }
    Loader.loadGlobal(cpu.toString());
    String artifact = version("pytorch");
    // the presets version is "<libtorch>-<javacpp>", e.g. 2.10.0-1.5.13
    int dash = artifact.lastIndexOf('-');
    String torchVersion = dash > 0 ? artifact.substring(0, dash) : artifact;
    String presets = dash > 0 ? artifact.substring(dash + 1) : version("javacpp");
    return new TorchRuntime(torchVersion, presets, cpu.getParent());
  }

  private static String version(String artifact) {
    try {
      String v = Loader.getVersion("org.bytedeco", artifact);
      return v == null ? "unknown" : v;
    } catch (IOException e) {
      return "unknown";
    }
  }

  public String torchVersion() {
    return torchVersion;
  }

  public String presetsVersion() {
    return presetsVersion;
  }

  /** Directory holding the libtorch_cpu.so this process uses. */
  public Path libtorchDir() {
    return libtorchDir;
  }

  /** Devices the harness can run ops on in this process: cpu and meta always, cuda when present. */
  public List<Device> availableDevices() {
    List<Device> devices = new ArrayList<>(List.of(Device.CPU, Device.META));
    if (cudaAvailable()) {
      devices.add(Device.CUDA);
    }
    return devices;
  }

  /**
   * The default devices under test: every available one, plus cuda when absent, so that its checks
   * are reported Skipped with the reason rather than silently dropped.
   */
  public List<Device> devicesUnderTest() {
    List<Device> devices = availableDevices();
    if (!devices.contains(Device.CUDA)) {
      devices.add(Device.CUDA);
    }
    return devices;
  }

  public boolean cudaAvailable() {
    return torch.cuda_is_available() && torch.cuda_device_count() > 0;
  }
}
