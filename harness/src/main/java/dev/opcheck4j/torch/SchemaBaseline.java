package dev.opcheck4j.torch;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a release of an op library promised, recorded for a later release to be compared against:
 * per op, its schema, the dispatch keys with kernels and its tags (format: docs/baseline.md).
 *
 * @param format always {@link #FORMAT}
 * @param library the library's file name
 * @param libtorch the libtorch version it was recorded with
 * @param ops one entry per op, sorted by name
 * @param values the file name (beside this one) of the outputs recorded on a spec's examples ({@link
 *     ValueBaseline}), or null when only schemas were recorded
 */
public record SchemaBaseline(String format, String library, String libtorch, List<Entry> ops, String values) {
  public static final String FORMAT = "opcheck4j-baseline/1";

  public SchemaBaseline {
    ops = List.copyOf(ops);
  }

  /** A baseline of schemas alone. */
  public SchemaBaseline(String format, String library, String libtorch, List<Entry> ops) {
    this(format, library, libtorch, ops, null);
  }

  /** The same baseline, its recorded outputs in the side file named {@code file}. */
  public SchemaBaseline withValues(String file) {
    return new SchemaBaseline(format, library, libtorch, ops, file);
  }

  /**
   * One op of the baseline.
   *
   * @param op qualified name with overload, {@code ns::name} or {@code ns::name.overload}
   * @param schema the schema string
   * @param kernels dispatch keys with a kernel, sorted
   * @param tags the op's tags ({@code pt2_compliant_tag}, ...), sorted
   */
  public record Entry(String op, String schema, List<String> kernels, List<String> tags) {
    public Entry {
      kernels = List.copyOf(kernels);
      tags = List.copyOf(tags);
    }
  }

  public Optional<Entry> entry(String op) {
    return ops.stream().filter(e -> e.op().equals(op)).findFirst();
  }

  /** Writes the baseline as indented JSON, the same bytes for the same baseline. */
  public void write(Path file) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    try (OutputStream os = Files.newOutputStream(file);
        JsonGenerator g = new JsonFactory().createGenerator(os, JsonEncoding.UTF8)) {
      DefaultPrettyPrinter pretty = new DefaultPrettyPrinter().withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
      g.setPrettyPrinter(pretty);
      g.writeStartObject();
      g.writeStringField("format", format);
      g.writeStringField("library", library);
      g.writeStringField("libtorch", libtorch);
      if (values != null) {
        g.writeStringField("values", values);
      }
      g.writeArrayFieldStart("ops");
      for (Entry e : ops) {
        g.writeStartObject();
        g.writeStringField("op", e.op());
        g.writeStringField("schema", e.schema());
        g.writeArrayFieldStart("kernels");
        for (String k : e.kernels()) {
          g.writeString(k);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("tags");
        for (String t : e.tags()) {
          g.writeString(t);
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeRaw('\n');
    }
  }

  /**
   * Reads a baseline file.
   *
   * @throws IOException naming the file and what is wrong with it
   */
  public static SchemaBaseline read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("baseline not found: " + file);
    }
    String format = null;
    String library = "";
    String libtorch = "";
    String values = null;
    List<Entry> ops = new ArrayList<>();
    try (JsonParser p = new JsonFactory().createParser(file.toFile())) {
      expect(p, p.nextToken() == JsonToken.START_OBJECT, file, "a JSON object");
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "format" -> format = p.getText();
          case "library" -> library = p.getText();
          case "libtorch" -> libtorch = p.getText();
          case "values" -> values = p.getText();
          case "ops" -> {
            expect(p, p.currentToken() == JsonToken.START_ARRAY, file, "\"ops\" to be an array");
            while (p.nextToken() == JsonToken.START_OBJECT) {
              ops.add(entry(p, file));
            }
          }
          default -> p.skipChildren();
        }
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IOException(file + ": not valid JSON: " + e.getOriginalMessage());
    }
    if (!FORMAT.equals(format)) {
      throw new IOException(file + ": not an opcheck4j baseline (\"format\" is " + format + ", expected " + FORMAT + ")");
    }
    return new SchemaBaseline(format, library, libtorch, ops, values);
  }

  private static Entry entry(JsonParser p, Path file) throws IOException {
    String op = null;
    String schema = null;
    List<String> kernels = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      switch (field) {
        case "op" -> op = p.getText();
        case "schema" -> schema = p.getText();
        case "kernels", "tags" -> {
          expect(p, p.currentToken() == JsonToken.START_ARRAY, file, "\"" + field + "\" to be an array");
          while (p.nextToken() == JsonToken.VALUE_STRING) {
            (field.equals("kernels") ? kernels : tags).add(p.getText());
          }
        }
        default -> p.skipChildren();
      }
    }
    if (op == null || schema == null) {
      throw new IOException(file + ":" + p.currentLocation().getLineNr() + ": an op entry needs \"op\" and \"schema\"");
    }
    return new Entry(op, schema, kernels, tags);
  }

  private static void expect(JsonParser p, boolean ok, Path file, String what) throws IOException {
    if (!ok) {
      throw new IOException(file + ":" + p.currentLocation().getLineNr() + ": expected " + what);
    }
  }
}
