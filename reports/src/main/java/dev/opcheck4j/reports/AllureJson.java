package dev.opcheck4j.reports;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.qameta.allure.model.Parameter;
import io.qameta.allure.model.Stage;
import io.qameta.allure.model.Status;
import java.io.IOException;
import java.util.Locale;

/**
 * Allure's public model ({@code io.qameta.allure.model}) as the JSON Allure's own results writer
 * gives: nulls left out, lists named by their wrapper, and its enums by their lower-case value. Our
 * own mapper, not Allure's shaded internal one, which moves with every Allure release.
 */
final class AllureJson {
  private AllureJson() {}

  static final ObjectMapper MAPPER = JsonMapper.builder()
      .configure(MapperFeature.USE_WRAPPER_NAME_AS_PROPERTY_NAME, true)
      .serializationInclusion(JsonInclude.Include.NON_NULL)
      .addModule(new SimpleModule()
          .addSerializer(Status.class, new LowerCase<>())
          .addSerializer(Stage.class, new LowerCase<>())
          .addSerializer(Parameter.Mode.class, new LowerCase<>()))
      .build();

  /** An Allure enum by its name in lower case ({@code passed}), as Allure's writer has it. */
  private static final class LowerCase<E extends Enum<E>> extends JsonSerializer<E> {
    @Override
    public void serialize(E e, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeString(e.name().toLowerCase(Locale.ROOT));
    }
  }
}
