package dev.opcheck4j.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An anchor in code for spec files: the opcheck4j engine checks the specs named here when the
 * class is selected (by an IDE, a build tool's class scan, or {@code -Dtest}). Each value is a
 * classpath resource ({@code opcheck/my_ops.yaml}) or, when no such resource exists, a file path.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OpCheckSpec {
  String[] value();
}
