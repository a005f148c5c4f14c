package dev.opcheck4j.run.link;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.opcheck4j.spec.SpecValue;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import dev.opcheck4j.run.link.Wire.Refs;
import dev.opcheck4j.run.link.Wire.Shape;
import dev.opcheck4j.run.link.Wire.Shared;

import static dev.opcheck4j.run.link.Wire.KINDS;
import static dev.opcheck4j.run.link.Wire.TAGGED;

/** The reading half of {@link Wire}: a line's JSON tree, converted to the declared type. */
final class WireReader {
  private WireReader() {}

  /** A location {@link #emitLocation} wrote. */
  private static String location(Object v, Refs refs) {
    if (!(v instanceof List<?> parts) || parts.size() != 2) {
      throw new IllegalArgumentException("a location is [file, rest], not " + v);
    }
    String file;
    if (parts.get(0) instanceof String f) {
      refs.readFiles.add(f);
      file = f;
    } else if (parts.get(0) instanceof Long n && n >= 0 && n < refs.readFiles.size()) {
      file = refs.readFiles.get(n.intValue());
    } else {
      throw new IllegalArgumentException("no location file numbered " + parts.get(0) + " before it");
    }
    return file + parts.get(1);
  }

  static Object tree(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        Map<String, Object> m = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String k = p.currentName();
          p.nextToken();
          m.put(k, tree(p));
        }
        return m;
      }
      case START_ARRAY -> {
        List<Object> l = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          l.add(tree(p));
        }
        return l;
      }
      case VALUE_STRING -> {
        return p.getText();
      }
      case VALUE_NUMBER_INT -> {
        return p.getLongValue();
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return p.getBooleanValue();
      }
      case VALUE_NULL -> {
        return null;
      }
      default -> throw new IOException("unexpected " + t);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Object convert(Object v, Type type, Refs refs) {
    if (type instanceof ParameterizedType pt) {
      Class<?> raw = (Class<?>) pt.getRawType();
      Type arg = pt.getActualTypeArguments()[raw == Map.class ? 1 : 0];
      if (raw == Optional.class) {
        return Optional.ofNullable(v == null ? null : convert(v, arg, refs));
      }
      if (v == null) {
        return null;
      }
      if (raw == List.class) {
        List<Object> out = new ArrayList<>();
        for (Object x : (List<Object>) v) {
          out.add(convert(x, arg, refs));
        }
        return out;
      }
      if (raw == Map.class) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
          out.put(e.getKey(), convert(e.getValue(), arg, refs));
        }
        return out;
      }
      return convert(v, raw, refs); // a generic record or sealed interface: its type argument is not on the wire
    }
    Class<?> c = (Class<?>) type;
    if (v == null) {
      return null;
    }
    switch (READ.get(c)) {
      case AS_IS -> {
        return v;
      }
      case INT -> {
        return ((Long) v).intValue();
      }
      case DOUBLE -> {
        return Double.parseDouble((String) v);
      }
      case PATH -> {
        return Path.of((String) v);
      }
      case DURATION -> {
        return Duration.ofMillis((Long) v);
      }
      case ENUM -> {
        return Enum.valueOf((Class) c, (String) v);
      }
      case SEALED -> {
        List<Object> tagged = (List<Object>) v;
        Class<?> kind = KINDS.get(c).get((String) tagged.get(0));
        if (kind == null) {
          throw new IllegalArgumentException("no " + c.getSimpleName() + " named " + tagged.get(0));
        }
        return convert(tagged.get(1), kind, refs);
      }
      case SPEC_VALUE -> {
        return specValue((List<Object>) v, refs);
      }
      case RECORD -> {
        return record(v, c, refs);
      }
      default -> throw new IllegalArgumentException("cannot decode " + c);
    }
  }

  /** How a value of a declared class is read, decided once per class (see {@code Wire.Written}). */
  private enum Read { AS_IS, INT, DOUBLE, PATH, DURATION, ENUM, SEALED, SPEC_VALUE, RECORD, UNKNOWN }

  /** The reading of each declared class, in the order the checks were made one by one before. */
  private static final ClassValue<Read> READ = new ClassValue<>() {
    @Override
    protected Read computeValue(Class<?> c) {
      if (c == String.class || c == Object.class || c == long.class || c == Long.class || c == boolean.class
          || c == Boolean.class) {
        return Read.AS_IS;
      } else if (c == int.class || c == Integer.class) {
        return Read.INT;
      } else if (c == double.class || c == Double.class) {
        return Read.DOUBLE;
      } else if (c == Path.class) {
        return Read.PATH;
      } else if (c == Duration.class) {
        return Read.DURATION;
      } else if (c.isEnum()) {
        return Read.ENUM;
      } else if (c.isInterface() && !KINDS.get(c).isEmpty()) {
        return Read.SEALED;
      } else if (c == SpecValue.class) {
        return Read.SPEC_VALUE;
      } else if (c.isRecord()) {
        return Read.RECORD;
      }
      return Read.UNKNOWN;
    }
  };

  @SuppressWarnings("unchecked")
  private static SpecValue specValue(List<Object> a, Refs refs) {
    Object x = a.get(1);
    Object value = switch ((String) a.get(0)) {
      case "d" -> Double.parseDouble((String) x);
      case "l" -> ((List<Object>) x).stream().map(e -> (SpecValue) convert(e, SpecValue.class, refs)).toList();
      case "m" -> {
        Map<String, SpecValue> m = new LinkedHashMap<>();
        ((Map<String, Object>) x).forEach((k, e) -> m.put(k, (SpecValue) convert(e, SpecValue.class, refs)));
        yield m;
      }
      default -> x;
    };
    return new SpecValue(value, a.get(2) == null ? null : location(a.get(2), refs));
  }

  @SuppressWarnings("unchecked")
  private static Object record(Object v, Class<?> c, Refs refs) {
    if (v instanceof List<?> tagged && TAGGED.get(c)) {
      v = tagged.get(1);
    }
    Map<String, Object> m = (Map<String, Object>) v;
    if (m.get("@") instanceof Long ref) {
      if (!Shared.class.isAssignableFrom(c) || ref < 0 || ref >= refs.read.size()) {
        throw new IllegalArgumentException("no " + c.getSimpleName() + " numbered " + ref + " before it");
      }
      return c.cast(refs.read.get(ref.intValue()));
    }
    Shape shape = Shape.of(c);
    RecordComponent[] comps = shape.components();
    Class<?>[] types = shape.types();
    Object[] args = new Object[comps.length];
    for (int i = 0; i < comps.length; i++) {
      Object raw = m.get(comps[i].getName());
      args[i] = raw == null && types[i].isPrimitive() ? primitiveZero(types[i]) : convert(raw, shape.genericTypes()[i], refs);
      if (args[i] == null && types[i] == Optional.class) {
        args[i] = Optional.empty();
      }
    }
    try {
      Object built = shape.constructor().newInstance(args);
      if (built instanceof Shared && m.get("#") instanceof Long n) {
        if (n != refs.read.size()) {
          throw new IllegalArgumentException(c.getSimpleName() + " numbered " + n + " where " + refs.read.size() + " was next");
        }
        refs.read.add(built);
      }
      return built;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build " + c.getSimpleName() + ": " + e, e);
    }
  }

  private static Object primitiveZero(Class<?> c) {
    if (c == boolean.class) {
      return false;
    }
    if (c == double.class) {
      return 0.0;
    }
    if (c == int.class) {
      return 0;
    }
    return 0L;
  }
}
