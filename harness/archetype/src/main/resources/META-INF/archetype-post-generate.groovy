// Writes the project's namespace into the AOTInductor package its release gate checks
// (src/test/resources/opcheck/shipped/mul_add.pt2, opcheck4j's docs/aoti.md). The package was compiled by
// PyTorch for the template op under a stand-in namespace, opcheck4j_template: its calls into the op library
// are extern nodes that name the op (in *.wrapper.json), and libtorch finds the op by that name when the
// package loads. Every other entry of the package is copied as it is.
import java.util.zip.ZipEntry
import java.util.zip.ZipFile
import java.util.zip.ZipOutputStream

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
