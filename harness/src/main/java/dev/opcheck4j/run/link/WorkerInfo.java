package dev.opcheck4j.run.link;

import dev.opcheck4j.run.plan.LibraryInfo;

import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * What a worker reports once it has loaded libtorch and the op libraries.
 *
 * @param torchVersion libtorch version
 * @param presetsVersion JavaCPP presets version
 * @param cudaAvailable whether the worker can run on cuda
 * @param libraries one per target of the run, in order
 */
public record WorkerInfo(String torchVersion, String presetsVersion, boolean cudaAvailable, List<LibraryInfo> libraries) {
  public WorkerInfo {
    libraries = List.copyOf(libraries);
  }

  /** cpu and meta, and cuda even without a GPU so that its checks are reported Skipped with the reason. */
  public List<Device> devicesUnderTest() {
    return new ArrayList<>(List.of(Device.CPU, Device.META, Device.CUDA));
  }
}
