package dev.opcheck4j.run.plan;


import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.torch.Device;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** Builds the {@code run} block every report carries from what a run was asked and given. */
public final class RunBlock {
  public static final String NO_CUDA = dev.opcheck4j.api.Coverage.NO_CUDA + " (torch.cuda_is_available() is false)";

  private RunBlock() {}

  /**
   * The devices considered: those asked for, or cpu, meta and cuda; cuda does not run (and says why)
   * when this process has none.
   */
  public static List<RunInfo.DeviceInfo> devices(List<Device> asked, boolean cudaAvailable) {
    List<Device> considered = asked.isEmpty() ? List.of(Device.CPU, Device.META, Device.CUDA) : asked;
    List<RunInfo.DeviceInfo> list = new ArrayList<>();
    for (Device d : considered) {
      boolean runs = d != Device.CUDA || cudaAvailable;
      list.add(new RunInfo.DeviceInfo(d.label(), runs, runs ? null : NO_CUDA));
    }
    return list;
  }

  /**
   * The run block of a run.
   *
   * @param libraries the library of each of the request's targets, in order
   * @param commandLine the command line that started it, or null
   * @param configuration the JUnit configuration parameters that started it, or null
   */
  public static RunInfo of(RunRequest request, List<Path> libraries, List<Check> checks,
      List<RunInfo.DeviceInfo> devices, Instant startedAt, long durationMs, String commandLine,
      java.util.Map<String, String> configuration) {
    Versions v = Versions.current();
    List<RunInfo.Input> inputs = new ArrayList<>();
    for (int i = 0; i < libraries.size(); i++) {
      Path lib = libraries.get(i);
      Path spec = i < request.targets().size() ? request.targets().get(i).spec() : null;
      inputs.add(new RunInfo.Input(spec == null ? null : spec.toString(), lib.toString(), sha256(lib)));
    }
    return new RunInfo(v.tool(), v.torch(), v.presets(), request.seed(), request.tries(), request.jobs(), devices,
        checks.stream().map(Check::id).toList(), inputs, startedAt, durationMs, commandLine, configuration);
  }

  /** Hex SHA-256 of a file, or null when it cannot be read. */
  public static String sha256(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (IOException e) {
      return null;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
