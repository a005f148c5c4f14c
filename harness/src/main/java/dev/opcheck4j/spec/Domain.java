package dev.opcheck4j.spec;

import java.util.List;

/**
 * The inputs an op is written for (the spec's {@code "domain"}): generation draws only inside it,
 * {@code noncontiguous} re-lays inputs out only into its layouts, and devices outside it are not run.
 * An empty list means "not declared": anything, or what the harness discovers.
 *
 * @param layouts tensor layouts the kernel accepts: contiguous, transposed, strided, offset, channels_last
 * @param dtypes tensor dtypes the kernel accepts, e.g. float32
 * @param devices devices the op supports: cpu, meta, cuda
 */
public record Domain(List<String> layouts, List<String> dtypes, List<String> devices) {
  public static final Domain ANY = new Domain(List.of(), List.of(), List.of());
  public static final List<String> LAYOUTS = List.of("contiguous", "transposed", "strided", "offset", "channels_last");

  public Domain {
    layouts = List.copyOf(layouts);
    dtypes = List.copyOf(dtypes);
    devices = List.copyOf(devices);
  }

  /** Whether tensors may be laid out as {@code layout}. */
  public boolean allowsLayout(String layout) {
    return layouts.isEmpty() || layouts.contains(layout);
  }

  public boolean allowsDtype(String dtype) {
    return dtypes.isEmpty() || dtypes.contains(dtype);
  }

  /**
   * Whether a tensor of dtype {@code own} in an example is one the declared dtypes are about (a data
   * tensor): a floating-point one; in an example with no floating-point tensor (an integer or bool op),
   * every one. Others, an index tensor of a floating-point op, keep their own dtype. Generation and the
   * {@code dtype.*} checks read this one rule.
   *
   * @param anyFloating whether the example has a floating-point tensor
   */
  public static boolean takesDeclaredDtypes(String own, boolean anyFloating) {
    return floating(own) || !anyFloating;
  }

  /** Whether {@code dtype} (a spec name) is floating-point: float16/32/64 or bfloat16. */
  public static boolean floating(String dtype) {
    return dtype.startsWith("float") || dtype.equals("bfloat16");
  }

  public boolean allowsDevice(String device) {
    return devices.isEmpty() || devices.contains(device);
  }

  /** One line for reports, e.g. "contiguous float32 inputs", or empty when nothing is declared. */
  public String describe() {
    List<String> parts = new java.util.ArrayList<>();
    if (!layouts.isEmpty()) {
      parts.add(String.join("|", layouts));
    }
    if (!dtypes.isEmpty()) {
      parts.add(String.join("|", dtypes));
    }
    String s = parts.isEmpty() ? "" : String.join(" ", parts) + " inputs";
    if (!devices.isEmpty()) {
      s += (s.isEmpty() ? "" : " ") + "on " + String.join(", ", devices);
    }
    return s;
  }
}
