package dev.opcheck4j.nativeops;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.pytorch.global.torch;

/**
 * Build-time step: asks JavaCPP to extract libtorch and writes the directory it lives in, so the
 * native ops link against exactly the libtorch_cpu.so/libc10.so the harness will load at run time.
 */
public final class LibtorchLocator {
  private LibtorchLocator() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: LibtorchLocator OUTPUT_FILE");
      System.exit(2);
    }
    Loader.load(torch.class);
    Path lib =
        Path.of(Loader.cacheResource(torch.class, Loader.getPlatform() + "/libtorch_cpu.so").getPath());
    Path out = Path.of(args[0]);
    Files.createDirectories(out.getParent());
    Files.writeString(out, lib.getParent().toString());
    System.out.println("libtorch: " + lib.getParent());
  }
}
