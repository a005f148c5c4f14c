package dev.opcheck4j.run.session;

import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The trials of one {@link OpSession#tryOn} exchange, one per input up to the one a death ended (the
 * last), and that death.
 */
public record Trials(List<Trial> trials, Optional<Death> death) {
  /**
   * What one generated input gave, its answers looked up by their units' tickets.
   *
   * @param kernel the real kernel's answer ({@link Answers.Acceptance}); null when it has none (it died)
   * @param checks the answers of the checks asked, in the order asked, up to the first without one (none
   *     when the kernel rejected the input: its guard skipped them; fewer: the worker died in the next)
   */
  public record Trial(Kernels.Done kernel, List<Kernels.Done> checks) {}

  /** The tickets of one input's units: its kernel call, and the checks that call guards. */
  private record Input(Batch.Ticket<Answers.Acceptance> kernel, List<Batch.Ticket<Answers.Checked>> checks) {}

  static Trials tryOn(OpSession session, String op, Device device, List<Example> examples, List<String> checks) {
    Batch batch = new Batch();
    List<Input> inputs = new ArrayList<>();
    for (Example example : examples) {
      Protocol.On on = session.on(op, device, example);
      Batch.Ticket<Answers.Acceptance> kernel = batch.add(new Protocol.Accepts(on));
      inputs.add(new Input(kernel, checks.stream().map(c -> batch.add(new Protocol.Evaluate(c, on))).toList()));
    }
    Kernels.Exchange x = session.run(batch.units(), true);
    List<Trial> trials = new ArrayList<>();
    for (Input input : inputs) {
      Kernels.Done kernel = x.done(input.kernel()).orElse(null);
      List<Kernels.Done> answered = new ArrayList<>();
      for (Batch.Ticket<Answers.Checked> check : kernel == null ? List.<Batch.Ticket<Answers.Checked>>of() : input.checks()) {
        Optional<Kernels.Done> d = x.done(check);
        if (d.isEmpty()) {
          break;
        }
        answered.add(d.get());
      }
      if (kernel == null && x.death().isEmpty()) {
        break; // a kernel call is guarded by nothing: without a death, every one has an answer
      }
      trials.add(new Trial(kernel, answered));
      if (kernel == null || x.death().isPresent() && OpSession.rejection(kernel) == null && answered.size() < checks.size()) {
        break; // the death ended the exchange here
      }
    }
    return new Trials(trials, x.death());
  }
}
