import java.util.zip.ZipEntry
import java.util.zip.ZipFile
import java.util.zip.ZipOutputStream

// Runs after archetype:generate wrote the project. In batch mode (-B) the plugin does not check a property
// against its validationRegex, so an abi it does not know would quietly give the stable form: refuse it in
// one line, and leave no half-made project behind.
def abi = request.properties.get("abi")
if (!(abi in ["stable", "classic"])) {
  new File(request.outputDirectory, request.artifactId).deleteDir()
  throw new IllegalArgumentException("opcheck4j-op-library-archetype: -Dabi=" + abi
      + " is not a form this archetype makes; use -Dabi=stable (the default: PyTorch's stable ABI) or -Dabi=classic"
      + " (TORCH_LIBRARY, as PyTorch's C++ tutorials)")
}

// Writes the project's namespace into the AOTInductor package its release gate checks
// (src/test/resources/opcheck/shipped/mul_add.pt2, opcheck4j's docs/aoti.md). The package was compiled by
// PyTorch for the template op under a stand-in namespace, opcheck4j_template: its calls into the op library
// are extern nodes that name the op (in *.wrapper.json), and libtorch finds the op by that name when the
// package loads. Every other entry of the package is copied as it is.
def namespace = request.properties.get("namespace")
def pkg = new File(new File(request.outputDirectory, request.artifactId), "src/test/resources/opcheck/shipped/mul_add.pt2")
def entries = []
def zip = new ZipFile(pkg)
try {
  for (ZipEntry e : Collections.list(zip.entries())) {
    byte[] bytes = zip.getInputStream(e).bytes
    if (e.name.endsWith(".wrapper.json")) {
      bytes = new String(bytes, "UTF-8").replace('"opcheck4j_template::', '"' + namespace + '::').getBytes("UTF-8")
    }
    entries << [e.name, bytes]
  }
} finally {
  zip.close()
}
def out = new ZipOutputStream(new FileOutputStream(pkg))
try {
  for (entry in entries) {
    out.putNextEntry(new ZipEntry(entry[0]))
    out.write(entry[1])
    out.closeEntry()
  }
} finally {
  out.close()
}
