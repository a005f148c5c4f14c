package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The report's JSON made safe inside a script element, by its one pass over the characters. */
class ScriptSafeTests {
  /** What it must give: the three markup characters and the invisible ones as unicode escapes, the rest as is. */
  private static String expected(String json) {
    return Pattern.compile("[\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]")
        .matcher(json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
        .replaceAll(m -> String.format("\\\\u%04x", (int) m.group().charAt(0)));
  }

  @Test
  void escapesMarkupAndInvisibleCharactersAndNothingElse() {
    assertEquals("{\"a\":\"\\u003c/script\\u003e \\u0026 \\u202e\\u0085 ok ≠ 日本\"}",
        HtmlReportFormat.scriptSafe("{\"a\":\"</script> & \u202e\u0085 ok ≠ 日本\"}"));
    String plain = "{\"plain\":1}";
    assertEquals(plain, HtmlReportFormat.scriptSafe(plain));
    char[] alphabet = ("ab{}\":,\\<>&\u007e\u007f\u0080\u009f\u00a0\u061b\u061c\u200d\u200e\u200f\u2027\u2028\u202e"
        + "\u202f\u2065\u2066\u2069\u206a≠日").toCharArray();
    Random random = new Random(7);
    for (int n = 0; n < 2000; n++) {
      StringBuilder s = new StringBuilder();
      for (int i = random.nextInt(40); i > 0; i--) {
        s.append(alphabet[random.nextInt(alphabet.length)]);
      }
      assertEquals(expected(s.toString()), HtmlReportFormat.scriptSafe(s.toString()), s.toString());
    }
  }
}
