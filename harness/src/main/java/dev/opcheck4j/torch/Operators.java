package dev.opcheck4j.torch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.OperatorHandleOptional;
import org.bytedeco.pytorch.OperatorName;

/** Looks operators up in the dispatcher by qualified name. */
public final class Operators {
  private Operators() {}

  static String qualified(OperatorName name) {
    String overload = NativeStrings.of(name.overload_name());
    return NativeStrings.of(name.name()) + (overload.isEmpty() ? "" : "." + overload);
  }

  /** Splits {@code ns::op.overload} into name and overload (empty when absent). */
  static String[] split(String qualified) {
    int ns = qualified.indexOf("::");
    int dot = qualified.indexOf('.', ns < 0 ? 0 : ns + 2);
    return dot < 0
        ? new String[] {qualified, ""}
        : new String[] {qualified.substring(0, dot), qualified.substring(dot + 1)};
  }

  static boolean hasSchema(String qualified) {
    String[] parts = split(qualified);
    OperatorHandleOptional h = Dispatcher.singleton().findSchema(new OperatorName(parts[0], parts[1]));
    return h != null && h.has_value();
  }

  /**
   * The registered operator {@code qualified}, from any library (aten ops included).
   *
   * @throws UnknownOpException with the nearest registered names
   */
  public static Operator find(String qualified) throws UnknownOpException {
    String[] parts = split(qualified);
    OperatorHandleOptional h = Dispatcher.singleton().findSchema(new OperatorName(parts[0], parts[1]));
    if (h == null || !h.has_value()) {
      throw new UnknownOpException(qualified, nearest(qualified, OpLibrary.allOpNames(), 3), "");
    }
    OperatorHandle handle = new OperatorHandle(h.get());
    return new Operator(qualified, handle, SchemaReader.read(handle.schema()), DispatchTable.of(handle));
  }

  /** Up to {@code limit} names closest to {@code name} by edit distance, closest first. */
  static List<String> nearest(String name, Collection<String> names, int limit) {
    List<String> sorted = new ArrayList<>(names);
    sorted.sort(Comparator.comparingInt((String n) -> distance(name, n)).thenComparing(n -> n));
    List<String> out = new ArrayList<>();
    for (String n : sorted) {
      if (out.size() == limit || distance(name, n) > Math.max(3, name.length() / 2)) {
        break;
      }
      out.add(n);
    }
    return out;
  }

  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
