package io.stunwatch.launcher;

import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Grafana's expansion of provisioning values, as {@code interpolateValue} in
 * {@code pkg/services/provisioning/values/values.go} does it: split on {@code $$} (a literal {@code $}), expand the
 * {@code $__file{...}} and {@code $__env{...}} expanders of each part, then Go's {@code os.ExpandEnv}, which knows
 * {@code $VAR} and {@code ${VAR}} only: {@code ${VAR:-default}} looks up a variable named {@code VAR:-default}.
 */
final class GrafanaInterpolation {

  private static final Pattern EXPANDER = Pattern.compile("\\$__(\\w+)\\{(.*?)}");

  private final Map<String, String> env;
  private final Function<String, String> file;

  /**
   * @param env  Grafana's environment
   * @param file what {@code $__file{path}} reads, by path
   */
  GrafanaInterpolation(Map<String, String> env, Function<String, String> file) {
    this.env = env;
    this.file = file;
  }

  String interpolate(String value) {
    String[] parts = value.split("\\$\\$", -1);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.append('$');
      }
      out.append(expandEnv(expanders(parts[i])));
    }
    return out.toString();
  }

  private String expanders(String s) {
    Matcher m = EXPANDER.matcher(s);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement = switch (m.group(1)) {
        case "file" -> file.apply(m.group(2));
        case "env" -> env.getOrDefault(m.group(2), "");
        default -> throw new IllegalArgumentException("unknown expander $__" + m.group(1));
      };
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Go's {@code os.Expand} with the environment as mapping. */
  String expandEnv(String s) {
    StringBuilder buf = new StringBuilder();
    int i = 0;
    for (int j = 0; j < s.length(); j++) {
      if (s.charAt(j) == '$' && j + 1 < s.length()) {
        buf.append(s, i, j);
        String rest = s.substring(j + 1);
        String name;
        int w;
        if (rest.charAt(0) == '{') {
          if (rest.length() > 2 && isShellSpecial(rest.charAt(1)) && rest.charAt(2) == '}') {
            name = rest.substring(1, 2);
            w = 3;
          } else {
            int close = rest.indexOf('}');
            if (close == 1) {
              name = "";
              w = 2; // "${}": bad syntax, eaten
            } else if (close < 0) {
              name = "";
              w = 1; // no closing brace: bad syntax, the "${" eaten
            } else {
              name = rest.substring(1, close);
              w = close + 1;
            }
          }
        } else if (isShellSpecial(rest.charAt(0))) {
          name = rest.substring(0, 1);
          w = 1;
        } else {
          int k = 0;
          while (k < rest.length() && (Character.isLetterOrDigit(rest.charAt(k)) && rest.charAt(k) < 128
              || rest.charAt(k) == '_')) {
            k++;
          }
          name = rest.substring(0, k);
          w = k;
        }
        if (name.isEmpty() && w > 0) {
          // invalid syntax: the characters are eaten
        } else if (name.isEmpty()) {
          buf.append('$'); // a $ followed by no name stays
        } else {
          buf.append(env.getOrDefault(name, ""));
        }
        j += w;
        i = j + 1;
      }
    }
    if (i < s.length()) {
      buf.append(s, i, s.length());
    }
    return buf.toString();
  }

  private static boolean isShellSpecial(char c) {
    return "*#$@!?-".indexOf(c) >= 0 || c >= '0' && c <= '9';
  }
}
