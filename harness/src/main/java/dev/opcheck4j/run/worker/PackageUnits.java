package dev.opcheck4j.run.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.opcheck4j.checks.Progress;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.torch.AotiRun;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.ScriptModels;
import dev.opcheck4j.torch.TensorFiles;
import dev.opcheck4j.torch.TorchRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.AOTIModelPackageLoader;
import org.bytedeco.pytorch.ExtraFilesMap;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.StringVector;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The worker's side of an AOTInductor package ({@code ./opcheck model X.pt2}, {@code aoti.run}): loads it with
 * libtorch's {@code AOTIModelPackageLoader} after the worker's libraries, as a C++ program does, and runs it on
 * inputs given as files or drawn. The loader extracts the package into a fresh folder of {@code $TMPDIR} and
 * leaves it there when it fails to load (its destructor never runs): the worker's {@code $TMPDIR} is a folder of
 * its own (the supervisor makes it), and whatever a unit leaves in it is deleted when the unit ends.
 */
public final class PackageUnits {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PackageUnits() {}

  /** Loads {@code file}'s {@code model} and, given inputs, runs it once and compares its outputs with {@code expect}. */
  public static AotiRun run(Path file, String model, List<String> inputs, long seed, Optional<Path> expect) {
    TorchRuntime.get();
    Path tmp = temporaryFolder();
    Set<Path> before = entries(tmp);
    try {
      Progress.step("loading " + file.getFileName() + " with AOTIModelPackageLoader");
      AOTIModelPackageLoader loader;
      try {
        // outside the unit's scope: closed here, once, which deletes the folder it extracted into
        loader = new AOTIModelPackageLoader(file.toString(), model, false, 1, (byte) -1);
      } catch (RuntimeException e) {
        return AotiRun.failed(AotiRun.Stage.LOAD, NativeStrings.firstLine(e.getMessage()));
      }
      try (PointerScope scope = new PointerScope()) {
        return run(loader, inputs, seed, expect);
      } finally {
        loader.close();
      }
    } finally {
      deleteNew(tmp, before);
    }
  }

  private static AotiRun run(AOTIModelPackageLoader loader, List<String> inputs, long seed, Optional<Path> expect) {
    Map<String, String> metadata = new LinkedHashMap<>();
    ExtraFilesMap m = loader.get_metadata();
    for (ExtraFilesMap.Iterator it = m.begin(); !it.equals(m.end()); it = it.increment()) {
      // an empty value comes back as a null pointer
      metadata.put(it.first().getString(), it.second() == null ? "" : it.second().getString());
    }
    List<String> spec = new ArrayList<>();
    StringVector cs = loader.get_call_spec();
    for (long i = 0; i < cs.size(); i++) {
      spec.add(cs.get(i).getString());
    }
    int leaves = spec.isEmpty() ? -1 : leaves(spec.get(0));
    AotiRun loaded = new AotiRun(null, metadata, spec, leaves, List.of(), null, List.of());
    if (inputs.isEmpty()) {
      return loaded;
    }
    if (leaves >= 0 && inputs.size() != leaves) {
      return with(loaded, new AotiRun.Failure(AotiRun.Stage.INPUTS, "the package takes " + leaves + " tensor"
          + (leaves == 1 ? "" : "s") + " (its call spec), --input gave " + inputs.size()));
    }
    GeneratorOptional gen = new GeneratorOptional(torch.make_generator_cpu(seed));
    List<Tensor> given = new ArrayList<>();
    for (String in : inputs) {
      Optional<Tensor> t;
      try {
        t = ModelUnits.isFile(in) ? Optional.of(TensorFiles.tensor(Path.of(in.strip())))
            : ModelUnits.input(in, gen).filter(IValue::isTensor).map(IValue::toTensor);
      } catch (TensorFiles.Unusable e) {
        return with(loaded, new AotiRun.Failure(AotiRun.Stage.INPUTS, "--input '" + in + "': " + e.getMessage()));
      }
      if (t.isEmpty()) {
        return with(loaded, new AotiRun.Failure(AotiRun.Stage.INPUTS, "--input '" + in + "' is not a tensor: a"
            + " package's inputs are tensors, DTYPE[d0,d1,...] or a .pt file saved by torch.save"));
      }
      given.add(t.get());
    }
    List<Tensor> before = given.stream().map(Tensor::clone).toList();
    TensorVector outputs;
    Progress.step("running the package");
    try {
      outputs = loader.run(new TensorVector(given.toArray(Tensor[]::new)));
    } catch (RuntimeException e) {
      String first = NativeStrings.firstLine(e.getMessage());
      // the package's own check of its inputs against the shapes it was compiled for (AOTI_RUNTIME_CHECK_INPUTS)
      return with(loaded, new AotiRun.Failure(first.startsWith("input_handles[") ? AotiRun.Stage.INPUTS
          : AotiRun.Stage.RUN, first));
    }
    List<Tensor> out = new ArrayList<>();
    List<String> described = new ArrayList<>();
    for (long i = 0; i < outputs.size(); i++) {
      Tensor t = outputs.get(i);
      out.add(t);
      described.add(TensorSpec.dtypeName(t.scalar_type()) + Arrays.toString(t.sizes().vec().get()));
    }
    List<Integer> changed = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      if (!given.get(i).equal(before.get(i))) {
        changed.add(i);
      }
    }
    AotiRun.Comparison comparison = null;
    if (expect.isPresent()) {
      Object c = compare(out, expect.get());
      if (c instanceof AotiRun.Failure f) {
        return new AotiRun(f, metadata, spec, leaves, described, null, changed);
      }
      comparison = (AotiRun.Comparison) c;
    }
    return new AotiRun(null, metadata, spec, leaves, described, comparison, changed);
  }

  private static AotiRun with(AotiRun loaded, AotiRun.Failure f) {
    return new AotiRun(f, loaded.metadata(), loaded.callSpec(), loaded.inputs(), List.of(), null, List.of());
  }

  /**
   * The package's flat outputs beside the tensors {@code file} holds (a tensor for one output, a tuple or list of
   * them for several, in the call spec's order), each within torch.testing's per-dtype tolerance: a {@link
   * AotiRun.Comparison}, or the {@link AotiRun.Failure} saying why the file holds nothing to compare with.
   */
  private static Object compare(List<Tensor> actual, Path file) {
    IValue saved;
    try {
      saved = TensorFiles.load(file);
    } catch (TensorFiles.Unusable e) {
      return new AotiRun.Failure(AotiRun.Stage.EXPECTED, e.getMessage());
    }
    List<TensorFiles.Labelled> expected = TensorFiles.tensors("output", saved);
    if (expected == null) {
      return new AotiRun.Failure(AotiRun.Stage.EXPECTED, file + " holds " + ScriptModels.kind(saved)
          + ", not a tensor or a tuple or list of tensors");
    }
    if (expected.size() != actual.size()) {
      return new AotiRun.Comparison(0, "the package gives " + actual.size() + " output" + (actual.size() == 1 ? "" : "s")
          + " where " + file.getFileName() + " holds " + expected.size(), List.of(), List.of());
    }
    for (int i = 0; i < expected.size(); i++) {
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(expected.get(i).label(), expected.get(i).tensor(),
          actual.get(i).cpu(), Optional.empty());
      if (m.isPresent()) {
        return new AotiRun.Comparison(i, m.get().butWas(), m.get().details(), m.get().heatmaps());
      }
    }
    return new AotiRun.Comparison(expected.size(), null, List.of(), List.of());
  }

  /** How many tensors a pytree spec ({@code [1, {"type": ..., "children_spec": [...]}]}) holds: its leaves. */
  static int leaves(String spec) {
    try {
      JsonNode root = JSON.readTree(spec);
      return leaves(root.isArray() && root.size() == 2 ? root.get(1) : root);
    } catch (IOException e) {
      return -1;
    }
  }

  private static int leaves(JsonNode node) {
    JsonNode children = node.path("children_spec");
    if (node.path("type").isNull() || !children.isArray()) {
      return 1;
    }
    int n = 0;
    for (JsonNode c : children) {
      n += leaves(c);
    }
    return n;
  }

  /** The folder libtorch's loader extracts into: {@code $TMPDIR}, else /tmp, as libtorch picks it. */
  static Path temporaryFolder() {
    String dir = System.getenv("TMPDIR");
    return Path.of(dir == null || dir.isBlank() ? "/tmp" : dir);
  }

  private static Set<Path> entries(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return new HashSet<>(s.toList());
    } catch (IOException e) {
      return Set.of();
    }
  }

  /**
   * Deletes what appeared in {@code dir} since {@code before} and is the loader's ({@code aotinductor_*}): all
   * a unit leaves there, the worker's own folder, which no other process writes.
   */
  private static void deleteNew(Path dir, Set<Path> before) {
    for (Path p : entries(dir)) {
      if (!before.contains(p) && p.getFileName().toString().startsWith("aotinductor_")) {
        try (Stream<Path> tree = Files.walk(p)) {
          for (Path f : tree.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(f);
          }
        } catch (IOException e) {
          // the supervisor deletes the worker's folder when the run ends
        }
      }
    }
  }
}
