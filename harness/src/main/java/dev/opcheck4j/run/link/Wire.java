package dev.opcheck4j.run.link;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import dev.opcheck4j.spec.SpecValue;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The protocol's encoding: records (and the lists, maps, optionals, enums, strings and numbers they
 * hold) as one line of JSON each way, so the parent and a worker exchange spec-level data (examples,
 * schemas, verdicts), never native objects. {@link SpecValue} keeps the difference between 2 and 2.0.
 * A record whose declared type is a sealed interface is written as {@code ["SimpleName", {...}]}, the
 * simple name of the permitted record it is, so one message kind or one cause kind is one record.
 */
public final class Wire {
  private static final JsonFactory JSON = new JsonFactory();
  /** Each record class's shape, looked up once (a map lookup per record read and written was a tenth of decoding). */
  private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
    @Override
    protected Shape computeValue(Class<?> c) {
      return Shape.build(c);
    }
  };

  /**
   * Per sealed interface, its records (through nested sealed interfaces) by simple name; empty for
   * any other type. Looked up once: {@link Class#isSealed()} costs a reflective call every time.
   */
  static final ClassValue<Map<String, Class<?>>> KINDS = new ClassValue<>() {
    @Override
    protected Map<String, Class<?>> computeValue(Class<?> sealed) {
      Map<String, Class<?>> kinds = new java.util.HashMap<>();
      if (!sealed.isInterface() || !sealed.isSealed()) {
        return kinds;
      }
      for (Class<?> c : sealed.getPermittedSubclasses()) {
        if (c.isSealed() && c.isInterface()) {
          kinds.putAll(get(c));
        } else {
          kinds.put(c.getSimpleName(), c);
        }
      }
      return kinds;
    }
  };

  /** Whether a record implements a sealed interface: then its kind is written with it. */
  static final ClassValue<Boolean> TAGGED = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> c) {
      for (Class<?> i : c.getInterfaces()) {
        if (i.isSealed()) {
          return true;
        }
      }
      return false;
    }
  };

  /** A record class's components, accessors and canonical constructor, looked up once. */
  record Shape(RecordComponent[] components, java.lang.reflect.Method[] accessors, Class<?>[] types,
      Type[] genericTypes, Constructor<?> constructor) {
    static Shape of(Class<?> c) {
      return SHAPES.get(c);
    }

    private static Shape build(Class<?> k) {
      RecordComponent[] comps = k.getRecordComponents();
      java.lang.reflect.Method[] accessors = new java.lang.reflect.Method[comps.length];
      Class<?>[] types = new Class<?>[comps.length];
      Type[] generic = new Type[comps.length];
      for (int i = 0; i < comps.length; i++) {
        accessors[i] = comps[i].getAccessor();
        accessors[i].setAccessible(true);
        types[i] = comps[i].getType();
        generic[i] = comps[i].getGenericType();
      }
      try {
        Constructor<?> ctor = k.getDeclaredConstructor(types);
        ctor.setAccessible(true);
        return new Shape(comps, accessors, types, generic, ctor);
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private Wire() {}

  /**
   * A record written once per message: the first time an instance occurs it is written with its
   * number ({@code "#"}), and each later occurrence of the same instance as {@code {"@": number}}.
   * The units of one generated input share its {@link Protocol.On}: with ten checks, its example
   * went over the socket eleven times and was decoded eleven times.
   */
  public interface Shared {}

  /** The {@link Shared} records of one message: numbered as written, and as read. */
  static final class Refs {
    /** Made at the first shared record: most messages (every answer) have none. */
    Map<Object, Integer> written;
    final List<Object> read = new ArrayList<>();
    /** The files of spec values' locations, numbered as written, and as read. */
    final Map<String, Integer> files = new java.util.HashMap<>();
    final List<String> readFiles = new ArrayList<>();
  }

  /** {@code value} as one line of JSON (no newline). */
  public static String write(Object value) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      emit(g, value, new Refs());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** Reads one line written by {@link #write} as {@code type}. */
  public static <T> T read(String line, Class<T> type) {
    try (JsonParser p = JSON.createParser(line)) {
      p.nextToken();
      return type.cast(WireReader.convert(WireReader.tree(p), type, new Refs()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * What a value of a class is on the wire, decided once per class: under the client compiler each
   * {@code instanceof} of an interface is a scan of the class's supertypes, and {@link Class#isRecord}
   * and {@link Class#isEnum} are native calls, which the parent paid per value of every message.
   */
  private enum Written { NULL, STRING, BOOLEAN, INTEGRAL, DOUBLE, ENUM, PATH, DURATION, OPTIONAL, SPEC_VALUE, LIST, MAP,
    TAGGED_RECORD, RECORD, UNKNOWN }

  /** The kind of a value of each class, in the order the checks were made one by one before. */
  private static final ClassValue<Written> WRITTEN = new ClassValue<>() {
    @Override
    protected Written computeValue(Class<?> c) {
      if (c == String.class) {
        return Written.STRING;
      } else if (c == Boolean.class) {
        return Written.BOOLEAN;
      } else if (c == Long.class || c == Integer.class) {
        return Written.INTEGRAL;
      } else if (c == Double.class) {
        return Written.DOUBLE;
      } else if (Enum.class.isAssignableFrom(c)) {
        return Written.ENUM;
      } else if (Path.class.isAssignableFrom(c)) {
        return Written.PATH;
      } else if (c == Duration.class) {
        return Written.DURATION;
      } else if (c == Optional.class) {
        return Written.OPTIONAL;
      } else if (c == SpecValue.class) {
        return Written.SPEC_VALUE;
      } else if (List.class.isAssignableFrom(c)) {
        return Written.LIST;
      } else if (Map.class.isAssignableFrom(c)) {
        return Written.MAP;
      } else if (Record.class.isAssignableFrom(c)) {
        return TAGGED.get(c) ? Written.TAGGED_RECORD : Written.RECORD;
      }
      return Written.UNKNOWN;
    }
  };

  private static void emit(JsonGenerator g, Object v, Refs refs) throws IOException {
    switch (v == null ? Written.NULL : WRITTEN.get(v.getClass())) {
      case NULL -> g.writeNull();
      case STRING -> g.writeString((String) v);
      case BOOLEAN -> g.writeBoolean((Boolean) v);
      case INTEGRAL -> g.writeNumber(((Number) v).longValue());
      case DOUBLE -> g.writeString(Double.toString((Double) v));
      case ENUM -> g.writeString(((Enum<?>) v).name());
      case PATH -> g.writeString(v.toString());
      case DURATION -> g.writeNumber(((Duration) v).toMillis());
      case OPTIONAL -> emit(g, ((Optional<?>) v).orElse(null), refs);
      case SPEC_VALUE -> {
        SpecValue sv = (SpecValue) v;
        g.writeStartArray();
        Object x = sv.value();
        g.writeString(x == null ? "n" : x instanceof Boolean ? "b" : x instanceof Long ? "i" : x instanceof Double ? "d"
            : x instanceof String ? "s" : x instanceof List ? "l" : "m");
        emit(g, x, refs);
        emitLocation(g, sv.location(), refs);
        g.writeEndArray();
      }
      case LIST -> {
        g.writeStartArray();
        for (Object x : (List<?>) v) {
          emit(g, x, refs);
        }
        g.writeEndArray();
      }
      case MAP -> {
        g.writeStartObject();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          g.writeFieldName(String.valueOf(e.getKey()));
          emit(g, e.getValue(), refs);
        }
        g.writeEndObject();
      }
      case TAGGED_RECORD -> {
        g.writeStartArray();
        g.writeString(v.getClass().getSimpleName());
        emitRecord(g, (Record) v, refs);
        g.writeEndArray();
      }
      case RECORD -> emitRecord(g, (Record) v, refs);
      case UNKNOWN -> throw new IllegalArgumentException("cannot encode " + v.getClass());
    }
  }

  /**
   * A spec value's location ({@code /abs/path/spec.json:17:45}) as {@code [file, ":17:45"]}, its file
   * written out the first time in a message and as its number after: an example's every value carries
   * its location, and the files' absolute paths were half of what a generated input sent.
   */
  private static void emitLocation(JsonGenerator g, String location, Refs refs) throws IOException {
    if (location == null) {
      g.writeNull();
      return;
    }
    int colon = location.indexOf(':', location.lastIndexOf('/') + 1);
    String file = colon < 0 ? location : location.substring(0, colon);
    g.writeStartArray();
    Integer seen = refs.files.get(file);
    if (seen == null) {
      refs.files.put(file, refs.files.size());
      g.writeString(file);
    } else {
      g.writeNumber(seen);
    }
    g.writeString(colon < 0 ? "" : location.substring(colon));
    g.writeEndArray();
  }


  private static void emitRecord(JsonGenerator g, Record r, Refs refs) throws IOException {
    {
      Shape shape = Shape.of(r.getClass());
      g.writeStartObject();
      if (r instanceof Shared) {
        if (refs.written == null) {
          refs.written = new java.util.IdentityHashMap<>();
        }
        Integer seen = refs.written.get(r);
        if (seen != null) {
          g.writeNumberField("@", seen);
          g.writeEndObject();
          return;
        }
        refs.written.put(r, refs.written.size());
        g.writeNumberField("#", refs.written.size() - 1);
      }
      for (int i = 0; i < shape.components().length; i++) {
        Object x;
        try {
          x = shape.accessors()[i].invoke(r);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
        if (x != null) {
          g.writeFieldName(shape.components()[i].getName());
          emit(g, x, refs);
        }
      }
      g.writeEndObject();
    }
  }

}
