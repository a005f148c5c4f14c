package dev.opcheck4j.junit;

import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import dev.opcheck4j.torch.UnknownOpException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.AnnotationConsumer;

/** Makes the {@link OpInput}s of an {@link OpInputs} annotation: examples first, then generated ones. */
public final class OpInputsProvider implements ArgumentsProvider, AnnotationConsumer<OpInputs> {
  private OpInputs inputs;

  @Override
  public void accept(OpInputs annotation) {
    this.inputs = annotation;
  }

  @Override
  public Stream<? extends Arguments> provideArguments(ExtensionContext context) throws Exception {
    long seed = RunOptions.SEED.read(context::getConfigurationParameter).orElse(
        inputs.seed() == OpInputs.SEED_FROM_TABLE ? RunOptions.SEED.defaultValue() : inputs.seed());
    int tries = inputs.tries() == OpInputs.TRIES_FROM_TABLE ? RunOptions.TRIES.defaultValue() : inputs.tries();
    Device device = Device.parse(inputs.device()).orElseThrow(() ->
        new IllegalArgumentException("@OpInputs device '" + inputs.device() + "': expected cpu, meta or cuda"));
    SpecFile spec = SpecReader.read(specPath(context));
    OpSpec opSpec = spec.ops().stream().filter(o -> o.op().equals(inputs.op())).findFirst().orElseThrow(() ->
        new IllegalArgumentException(spec.file() + " has no op " + inputs.op() + "; it has "
            + spec.ops().stream().map(OpSpec::op).toList()));
    OpLibrary lib = OpLibrary.load(spec.library());
    Operator op = op(lib, opSpec);
    List<Arguments> out = new ArrayList<>();
    List<ExampleGenerator> generators = new ArrayList<>();
    for (int i = 0; i < opSpec.examples().size(); i++) {
      Example ex = opSpec.examples().get(i);
      Subject s = new Subject(lib, op, opSpec, device, ex, seed);
      out.add(arguments(new OpInput("example #" + (i + 1), s, Materializer.bind(op, ex, device, seed), null, null)));
      generators.add(new ExampleGenerator(op.schema(), ex, opSpec.vary()));
    }
    SplittableRandom seeds = new SplittableRandom(seed ^ op.name().hashCode());
    for (int t = 0; t < tries && !generators.isEmpty(); t++) {
      ExampleGenerator gen = generators.get(t % generators.size());
      Choices choices = Choices.random(seeds.nextLong());
      OpInput in = generated(lib, op, opSpec, device, seed, gen, choices, "generated #" + (t + 1));
      if (in != null) {
        out.add(arguments(in));
      }
    }
    return out.stream();
  }

  /** A generated input the kernel accepts, or null when it rejects it (outside the op's domain). */
  static OpInput generated(OpLibrary lib, Operator op, OpSpec spec, Device device, long seed, ExampleGenerator gen,
      Choices choices, String label) {
    Example e = gen.generate(choices);
    Subject s = new Subject(lib, op, spec, device, e, seed);
    try {
      OpCall.call(s, Materializer.bind(op, e, device, seed));
      BoundExample fresh = Materializer.bind(op, e, device, seed);
      return new OpInput(label, s, fresh, gen, choices.sequence());
    } catch (ExampleException | OpCall.KernelError rejected) {
      return null;
    }
  }

  private static Arguments arguments(OpInput in) {
    return Arguments.of(Named.of(in.toString(), in));
  }

  private static Operator op(OpLibrary lib, OpSpec spec) throws UnknownOpException {
    return lib.op(spec.op());
  }

  private Path specPath(ExtensionContext context) throws URISyntaxException {
    ClassLoader loader = context.getRequiredTestClass().getClassLoader();
    URL url = loader.getResource(inputs.spec());
    return url != null && "file".equals(url.getProtocol()) ? Path.of(url.toURI()) : Path.of(inputs.spec());
  }

}
