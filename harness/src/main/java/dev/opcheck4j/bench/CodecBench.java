package dev.opcheck4j.bench;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonIdentityInfo;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.ObjectIdGenerators;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.checks.builtin.CheckCatalog;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Replies;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.Wire;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The protocol's cost per generated input, {@link Wire} against a Jackson-databind prototype of the
 * same encoding (records by their components, sealed kinds by simple name in a two-element array, a
 * generated input's {@link Protocol.On} once per message, spec values with their locations): the
 * parent writes the input's units and reads their answers, the worker reads the units and writes the
 * answers. Thread CPU time and bytes allocated per input, the best of several interleaved rounds.
 */
final class CodecBench {
  private final PrintStream out;

  CodecBench(PrintStream out) {
    this.out = out;
  }

  /** One encoding: a message to its line and back. */
  private interface Codec {
    String write(Object message);

    <T> T read(String line, Class<T> type);
  }

  void run(Path specs, int inputs) throws Exception {
    SpecFile file = SpecReader.read(specs.resolve("my_ops.json"));
    OpSpec spec = file.ops().stream().filter(o -> o.op().equals("my_ops::mul_add")).findFirst().orElseThrow();
    List<String> checks = CheckCatalog.builtin().stream().filter(CheckInfo::generated).map(CheckInfo::id).toList();
    List<Protocol.Run> runs = new ArrayList<>();
    List<Replies.Answered> answers = new ArrayList<>();
    for (int i = 0; i < inputs; i++) {
      Example base = spec.examples().get(0);
      Example variant = new Example(base.ref(), base.args(), base.kwargs(), i, base.location(), Optional.empty());
      Protocol.On on = new Protocol.On(0, spec.op(), Device.CPU, variant, 7L, 1);
      List<Protocol.Unit<?>> units = new ArrayList<>(List.of(new Protocol.Accepts(on)));
      checks.forEach(c -> units.add(new Protocol.Evaluate(c, on)));
      runs.add(new Protocol.Run(i, List.of(), units, true));
    }
    answers.add(new Replies.Answered(1, new Answers.Accepted(), 40));
    for (int c = 0; c < checks.size(); c++) {
      answers.add(new Replies.Answered(1, new Answers.Checked(Verdict.passed()), 900 + c));
    }
    Codec wire = new Codec() {
      @Override
      public String write(Object message) {
        return Wire.write(message);
      }

      @Override
      public <T> T read(String line, Class<T> type) {
        return Wire.read(line, type);
      }
    };
    Codec jackson = new JacksonCodec();
    for (Codec c : List.of(wire, jackson)) {
      String name = c == wire ? "Wire" : "Jackson databind";
      if (!runs.get(1).equals(c.read(c.write(runs.get(1)), Protocol.Request.class))
          || !answers.get(1).equals(c.read(c.write(answers.get(1)), Replies.Reply.class))) {
        throw new IllegalStateException(name + " does not read back what it wrote: " + c.write(runs.get(1)));
      }
      out.printf("bench codec %s: a generated input's units %d chars, an answer %d chars%n", name,
          c.write(runs.get(1)).length(), c.write(answers.get(1)).length());
    }
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    Map<String, long[]> best = new LinkedHashMap<>();
    for (int round = 0; round < 7; round++) {
      for (Codec c : List.of(wire, jackson)) {
        long cpu0 = threads.getCurrentThreadCpuTime();
        long bytes0 = threads.getThreadAllocatedBytes(self);
        for (Protocol.Run r : runs) {
          c.read(c.write(r), Protocol.Request.class);
          for (Replies.Answered a : answers) {
            c.read(c.write(a), Replies.Reply.class);
          }
        }
        long cpu = (threads.getCurrentThreadCpuTime() - cpu0) / inputs;
        long bytes = (threads.getThreadAllocatedBytes(self) - bytes0) / inputs;
        if (round >= 2) { // the first two rounds warm the JIT
          best.merge(c == wire ? "Wire" : "Jackson databind", new long[] {cpu, bytes},
              (a, b) -> new long[] {Math.min(a[0], b[0]), Math.min(a[1], b[1])});
        }
      }
    }
    best.forEach((name, v) -> out.printf("bench codec %s: %.1f µs CPU and %d bytes allocated per generated input "
        + "(its %d units written and read, their answers written and read; best of 5 rounds of %d inputs)%n",
        name, v[0] / 1000.0, v[1], checks.size() + 1, inputs));
  }

  /** The prototype: databind for records and sealed kinds, a serializer of its own for spec values. */
  private static final class JacksonCodec implements Codec {
    private static final String FILES = "opcheck4j.files";
    private final ObjectMapper mapper = new ObjectMapper();

    @JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME, include = JsonTypeInfo.As.WRAPPER_ARRAY)
    private interface ByName {}

    @JsonIdentityInfo(generator = ObjectIdGenerators.IntSequenceGenerator.class, property = "#")
    private interface Shared {}

    JacksonCodec() {
      mapper.setVisibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE);
      mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
      mapper.setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);
      mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
      for (Class<?> sealed : List.of(Protocol.Request.class, Replies.Reply.class, Protocol.Unit.class,
          Answers.Answer.class)) {
        byName(sealed);
      }
      mapper.addMixIn(Protocol.On.class, Shared.class);
      SimpleModule m = new SimpleModule();
      m.addSerializer(SpecValue.class, new SpecValueWriter());
      m.addDeserializer(SpecValue.class, new SpecValueReader());
      m.addSerializer(Optional.class, new OptionalWriter());
      m.addDeserializer(Optional.class, new OptionalReader(null));
      mapper.registerModule(m);
    }

    private void byName(Class<?> sealed) {
      mapper.addMixIn(sealed, ByName.class);
      for (Class<?> c : sealed.getPermittedSubclasses()) {
        if (c.isInterface()) {
          byName(c);
        } else {
          mapper.registerSubtypes(c);
        }
      }
    }

    @Override
    public String write(Object message) {
      try {
        Class<?> as = message instanceof Protocol.Request ? Protocol.Request.class : Replies.Reply.class;
        return mapper.writerFor(as).writeValueAsString(message);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public <T> T read(String line, Class<T> type) {
      try {
        return mapper.readValue(line, type);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** {@code [kind, value, [file or its number, ":line:column"]]}, as {@link Wire} writes it. */
    private static final class SpecValueWriter extends JsonSerializer<SpecValue> {
      @Override
      public void serialize(SpecValue sv, JsonGenerator g, SerializerProvider p) throws IOException {
        g.writeStartArray();
        Object x = sv.value();
        g.writeString(x == null ? "n" : x instanceof Boolean ? "b" : x instanceof Long ? "i" : x instanceof Double ? "d"
            : x instanceof String ? "s" : x instanceof List ? "l" : "m");
        if (x instanceof Double d) {
          g.writeString(Double.toString(d));
        } else {
          p.defaultSerializeValue(x, g);
        }
        String location = sv.location();
        if (location == null) {
          g.writeNull();
        } else {
          @SuppressWarnings("unchecked")
          Map<String, Integer> files = (Map<String, Integer>) p.getAttribute(FILES);
          if (files == null) {
            files = new HashMap<>();
            p.setAttribute(FILES, files);
          }
          int colon = location.indexOf(':', location.lastIndexOf('/') + 1);
          String file = colon < 0 ? location : location.substring(0, colon);
          g.writeStartArray();
          Integer seen = files.get(file);
          if (seen == null) {
            files.put(file, files.size());
            g.writeString(file);
          } else {
            g.writeNumber(seen);
          }
          g.writeString(colon < 0 ? "" : location.substring(colon));
          g.writeEndArray();
        }
        g.writeEndArray();
      }
    }

    private static final class SpecValueReader extends JsonDeserializer<SpecValue> {
      @Override
      public SpecValue deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        p.nextToken();
        String kind = p.getText();
        p.nextToken();
        Object value = switch (kind) {
          case "n" -> null;
          case "b" -> p.getBooleanValue();
          case "i" -> p.getLongValue();
          case "d" -> Double.parseDouble(p.getText());
          case "s" -> p.getText();
          case "l" -> {
            List<SpecValue> l = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
              l.add(deserialize(p, ctxt));
            }
            yield l;
          }
          default -> {
            Map<String, SpecValue> m = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String k = p.currentName();
              p.nextToken();
              m.put(k, deserialize(p, ctxt));
            }
            yield m;
          }
        };
        String location = null;
        if (p.nextToken() == JsonToken.START_ARRAY) {
          @SuppressWarnings("unchecked")
          List<String> files = (List<String>) ctxt.getAttribute(FILES);
          if (files == null) {
            files = new ArrayList<>();
            ctxt.setAttribute(FILES, files);
          }
          p.nextToken();
          String file;
          if (p.currentToken() == JsonToken.VALUE_STRING) {
            file = p.getText();
            files.add(file);
          } else {
            file = files.get(p.getIntValue());
          }
          p.nextToken();
          location = file + p.getText();
          p.nextToken();
        }
        p.nextToken();
        return new SpecValue(value, location);
      }
    }

    @SuppressWarnings("rawtypes")
    private static final class OptionalWriter extends JsonSerializer<Optional> {
      @Override
      public void serialize(Optional o, JsonGenerator g, SerializerProvider p) throws IOException {
        p.defaultSerializeValue(o.orElse(null), g);
      }
    }

    @SuppressWarnings("rawtypes")
    private static final class OptionalReader extends JsonDeserializer<Optional> implements ContextualDeserializer {
      private final JavaType content;

      OptionalReader(JavaType content) {
        this.content = content;
      }

      @Override
      public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
        JavaType t = property != null ? property.getType() : ctxt.getContextualType();
        return new OptionalReader(t.containedTypeOrUnknown(0));
      }

      @Override
      public Optional deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        return Optional.ofNullable(ctxt.readValue(p, content));
      }

      @Override
      public Optional getNullValue(DeserializationContext ctxt) {
        return Optional.empty();
      }
    }
  }
}
