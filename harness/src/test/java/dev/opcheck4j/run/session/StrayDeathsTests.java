package dev.opcheck4j.run.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A crash on a native thread is sent again before it is charged to the unit in flight; no other death is. */
class StrayDeathsTests {
  private static Death crash(boolean offThread) {
    return new Death(new Cause.Crash("SIGSEGV"), "killed by SIGSEGV", List.of(), Optional.of("the cpu kernel for kernel.error"),
        Death.UNKNOWN, offThread).in(11);
  }

  private static Kernels.Done passed() {
    return new Kernels.Done(new Answers.Checked(Verdict.passed()), 3);
  }

  /** Units 10 and 11 of an exchange from 10: the first answered, the worker died in the second. */
  private static Kernels.Exchange died(Death d) {
    return new Kernels.Exchange(10, Map.of(10L, passed()), Optional.of(d));
  }

  @Test
  void aNativeThreadsCrashThatSendingAgainDoesNotRepeatIsAStrayAndTheUnitsKeepTheirNewAnswers() {
    StrayDeaths strays = new StrayDeaths();
    Kernels.Done again = passed();
    Kernels.Exchange x = strays.confirm(died(crash(true)), "stray_ops::wakes",
        () -> new Kernels.Exchange(40, Map.of(40L, passed(), 41L, again), Optional.empty()));
    assertEquals(Optional.empty(), x.death());
    assertEquals(10, x.first());
    assertSame(again, x.answers().get(11L), "the new worker's answer, under the first exchange's id");
    List<StrayDeaths.Stray> found = strays.take();
    assertEquals(1, found.size());
    assertEquals("stray_ops::wakes", found.get(0).op());
    assertEquals("the cpu kernel for kernel.error", found.get(0).doing());
    assertEquals(List.of(), strays.take(), "each stray is handed out once");
  }

  @Test
  void aNativeThreadsCrashThatRepeatsIsTheUnitsAsBefore() {
    StrayDeaths strays = new StrayDeaths();
    Kernels.Exchange first = died(crash(true));
    Kernels.Exchange x = strays.confirm(first, "stray_ops::crashes_in_its_thread",
        () -> new Kernels.Exchange(40, Map.of(40L, passed()), Optional.of(crash(true).in(41))));
    assertSame(first, x);
    assertEquals(List.of(), strays.take());
  }

  @Test
  void aCrashOnTheUnitsOwnThreadOrAHangIsNotSentAgain() {
    StrayDeaths strays = new StrayDeaths();
    AtomicInteger sent = new AtomicInteger();
    Kernels.Exchange own = died(crash(false));
    assertSame(own, strays.confirm(own, "crash_ops::null_deref", () -> {
      sent.incrementAndGet();
      return Kernels.Exchange.none();
    }));
    Kernels.Exchange hang = died(new Death(new Cause.Timeout(5), "no answer after 5 s", List.of(), Optional.empty(),
        11, true));
    assertSame(hang, strays.confirm(hang, "crash_ops::spins", () -> {
      sent.incrementAndGet();
      return Kernels.Exchange.none();
    }));
    Kernels.Exchange fine = new Kernels.Exchange(10, Map.of(10L, passed()), Optional.empty());
    assertSame(fine, strays.confirm(fine, "good_ops::add", () -> {
      sent.incrementAndGet();
      return Kernels.Exchange.none();
    }));
    assertEquals(0, sent.get());
    assertTrue(strays.take().isEmpty());
  }
}
