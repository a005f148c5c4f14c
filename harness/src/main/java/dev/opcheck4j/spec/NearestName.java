package dev.opcheck4j.spec;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** "Did you mean": the known name a mistyped one most likely meant, for spec errors. */
public final class NearestName {
  /** Names PyTorch and NumPy users write for a dtype, to the name a spec uses. */
  private static final Map<String, String> DTYPE_ALIASES = Map.ofEntries(
      Map.entry("fp32", "float32"), Map.entry("f32", "float32"), Map.entry("float", "float32"),
      Map.entry("torch.float", "float32"), Map.entry("torch.float32", "float32"), Map.entry("single", "float32"),
      Map.entry("fp64", "float64"), Map.entry("f64", "float64"), Map.entry("double", "float64"),
      Map.entry("torch.double", "float64"), Map.entry("torch.float64", "float64"),
      Map.entry("fp16", "float16"), Map.entry("f16", "float16"), Map.entry("half", "float16"),
      Map.entry("torch.half", "float16"), Map.entry("torch.float16", "float16"),
      Map.entry("bf16", "bfloat16"), Map.entry("torch.bfloat16", "bfloat16"),
      Map.entry("long", "int64"), Map.entry("i64", "int64"), Map.entry("torch.long", "int64"), Map.entry("torch.int64", "int64"),
      Map.entry("int", "int32"), Map.entry("i32", "int32"), Map.entry("torch.int", "int32"), Map.entry("torch.int32", "int32"),
      Map.entry("short", "int16"), Map.entry("i16", "int16"), Map.entry("i8", "int8"), Map.entry("char", "int8"),
      Map.entry("byte", "uint8"), Map.entry("u8", "uint8"), Map.entry("boolean", "bool"), Map.entry("torch.bool", "bool"),
      Map.entry("cfloat", "complex64"), Map.entry("c64", "complex64"));

  /** Typed names longer than this get no suggestion (the distance is quadratic in the length). */
  private static final int LONGEST = 64;

  private NearestName() {}

  /** {@code "; did you mean X?"} or the empty string. */
  public static String didYouMean(String typed, List<String> known) {
    return closest(typed, known).map(k -> "; did you mean " + k + "?").orElse("");
  }

  /** {@code "; did you mean X?"} for a dtype name (its PyTorch aliases included), or the empty string. */
  public static String didYouMeanDtype(String typed, List<String> known) {
    String alias = DTYPE_ALIASES.get(typed.toLowerCase(java.util.Locale.ROOT));
    if (alias != null && known.contains(alias)) {
      return "; did you mean " + alias + "?";
    }
    return didYouMean(typed, known);
  }

  /** The known name closest to {@code typed}, if one is within a third of its length (at least 2 edits). */
  public static Optional<String> closest(String typed, List<String> known) {
    if (typed.length() > LONGEST) {
      return Optional.empty();
    }
    int limit = Math.max(2, typed.length() / 3);
    return known.stream()
        .filter(k -> distance(typed, k) <= limit)
        .min(Comparator.comparingInt((String k) -> distance(typed, k)));
  }

  /** Levenshtein distance, case-insensitive, with adjacent transpositions counted as one edit. */
  public static int distance(String typed, String name) {
    String a = typed.toLowerCase(java.util.Locale.ROOT);
    String b = name.toLowerCase(java.util.Locale.ROOT);
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
