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
