# The compile settings of an op library that opcheck4j loads, linked against the libtorch of the JavaCPP
# presets the harness runs on (2.13): stable-ABI libraries pinned to a TORCH_TARGET_VERSION, and classic
# TORCH_LIBRARY libraries, which need the runtime's own headers (torch-headers.sh finds them).
# native-ops builds with it, and it ships in opcheck4j-native-ops-<version>-sdk.zip with torch-headers.sh,
# which the op-library archetype's projects unpack and run.
#
# Inputs:
#   LIBTORCH_DIR_FILE   file holding the directory of the libtorch_cpu.so JavaCPP extracted
#                       (written by dev.opcheck4j.nativeops.LibtorchLocator)
#   TORCH_INCLUDE_DIR   the LibTorch include directory, or
#   TORCH_HEADERS_FILE  the file holding it (include-dir.txt, written by torch-headers.sh)
#   OPCHECK4J_SANITIZE  optional: sanitizers every op library is built with, as -fsanitize= takes them
#                       (address,undefined or thread); opcheck4j starts the workers of such a library with the
#                       sanitizer's runtime preloaded and turns each report into a finding (docs/sanitizers.md)
#   OPCHECK4J_COVERAGE  optional, ON: every op library records gcov's line coverage (--coverage), which
#                       opcheck4j reads per op into its report (docs/sanitizers.md#line-coverage)
# Gives: op_library(name [TARGET_VERSION hex] [SANITIZE list] [COVERAGE] sources...), a stable-ABI shared
#        library linked against that libtorch (TARGET_VERSION default 0x020a000000000000: it then loads into
#        libtorch 2.10 and later too), built with the sanitizers SANITIZE names or with coverage (each
#        defaulting to OPCHECK4J_SANITIZE and OPCHECK4J_COVERAGE);
#        classic_op_library(name [SANITIZE list] [COVERAGE] sources...), a classic TORCH_LIBRARY library
#        (torch/torch.h, torch/script.h).
#        TORCH_HEADERS_VERSION: the headers' major.minor, read from torch/headeronly/version.h.
#        opcheck4j_instrument(target SANITIZE list | COVERAGE): the same flags on a target of your own.
if(NOT DEFINED LIBTORCH_DIR_FILE)
  message(FATAL_ERROR "LIBTORCH_DIR_FILE is not set")
endif()
if(NOT DEFINED TORCH_INCLUDE_DIR)
  if(NOT DEFINED TORCH_HEADERS_FILE)
    message(FATAL_ERROR "neither TORCH_INCLUDE_DIR nor TORCH_HEADERS_FILE is set (run torch-headers.sh)")
  endif()
  file(STRINGS "${TORCH_HEADERS_FILE}" TORCH_INCLUDE_DIR LIMIT_COUNT 1)
endif()
file(STRINGS "${LIBTORCH_DIR_FILE}" LIBTORCH_DIR LIMIT_COUNT 1)
message(STATUS "LibTorch headers: ${TORCH_INCLUDE_DIR}")
message(STATUS "libtorch (JavaCPP): ${LIBTORCH_DIR}")

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_SKIP_BUILD_RPATH FALSE)

file(STRINGS "${TORCH_INCLUDE_DIR}/torch/headeronly/version.h" _torch_version_lines
  REGEX "#define TORCH_VERSION_(MAJOR|MINOR) ")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*" "\\1.\\2" TORCH_HEADERS_VERSION "${_torch_version_lines}")
message(STATUS "LibTorch headers' version: ${TORCH_HEADERS_VERSION}")

# Stable ABI: TORCH_TARGET_VERSION makes the headers expose only the stable ABI of that release, so the
# library loads into every libtorch since. JavaCPP's libtorch uses the C++11 std::string ABI.
add_library(torch_stable INTERFACE)
target_include_directories(torch_stable SYSTEM INTERFACE "${TORCH_INCLUDE_DIR}")
target_compile_definitions(torch_stable INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
target_link_options(torch_stable INTERFACE "-Wl,--no-as-needed")
target_link_libraries(torch_stable INTERFACE
  "${LIBTORCH_DIR}/libtorch_cpu.so" "${LIBTORCH_DIR}/libc10.so")

set(OPCHECK4J_SANITIZE "" CACHE STRING "sanitizers op libraries are built with (-fsanitize=), e.g. address,undefined")
option(OPCHECK4J_COVERAGE "op libraries record gcov's line coverage (--coverage)" OFF)

# The sanitizers' flags: line tables and frame pointers for their reports' file:line, -O1 as their manuals advise.
# Coverage: -O0, so that each line's count is its own (no line merged into another by the optimizer).
function(opcheck4j_instrument name)
  cmake_parse_arguments(PARSE_ARGV 1 INSTR "COVERAGE" "SANITIZE" "")
  if(INSTR_SANITIZE)
    target_compile_options(${name} PRIVATE -fsanitize=${INSTR_SANITIZE} -fno-omit-frame-pointer -g -O1)
    target_link_options(${name} PRIVATE -fsanitize=${INSTR_SANITIZE})
  endif()
  if(INSTR_COVERAGE)
    target_compile_options(${name} PRIVATE --coverage -g -O0)
    target_link_options(${name} PRIVATE --coverage)
  endif()
endfunction()

# Applies SANITIZE / COVERAGE (or the OPCHECK4J_ defaults) to an op library target.
macro(_opcheck4j_variant name sanitize coverage)
  set(_sanitize "${sanitize}")
  if(NOT _sanitize)
    set(_sanitize "${OPCHECK4J_SANITIZE}")
  endif()
  if(${coverage} OR OPCHECK4J_COVERAGE)
    opcheck4j_instrument(${name} COVERAGE)
  endif()
  if(_sanitize)
    opcheck4j_instrument(${name} SANITIZE "${_sanitize}")
  endif()
endmacro()

function(op_library name)
  cmake_parse_arguments(PARSE_ARGV 1 OPLIB "COVERAGE" "TARGET_VERSION;SANITIZE" "")
  if(NOT OPLIB_TARGET_VERSION)
    set(OPLIB_TARGET_VERSION 0x020a000000000000)
  endif()
  add_library(${name} SHARED ${OPLIB_UNPARSED_ARGUMENTS})
  _opcheck4j_variant(${name} "${OPLIB_SANITIZE}" OPLIB_COVERAGE)
  target_link_libraries(${name} PRIVATE torch_stable)
  target_compile_definitions(${name} PRIVATE TORCH_TARGET_VERSION=${OPLIB_TARGET_VERSION})
  target_include_directories(${name} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  set_target_properties(${name} PROPERTIES BUILD_RPATH "${LIBTORCH_DIR}")
endfunction()

# Classic TORCH_LIBRARY code binds to one libtorch's C++ ABI: built with the runtime's own headers (the
# torch 2.13.0 wheel's) it loads with every symbol. Those headers need C++17; 2.14's need C++20.
function(classic_op_library name)
  cmake_parse_arguments(PARSE_ARGV 1 OPLIB "COVERAGE" "SANITIZE" "")
  add_library(${name} SHARED ${OPLIB_UNPARSED_ARGUMENTS})
  _opcheck4j_variant(${name} "${OPLIB_SANITIZE}" OPLIB_COVERAGE)
  target_include_directories(${name} SYSTEM PRIVATE
    "${TORCH_INCLUDE_DIR}" "${TORCH_INCLUDE_DIR}/torch/csrc/api/include")
  target_include_directories(${name} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_compile_definitions(${name} PRIVATE _GLIBCXX_USE_CXX11_ABI=1)
  if(TORCH_HEADERS_VERSION VERSION_GREATER_EQUAL 2.14)
    set_target_properties(${name} PROPERTIES CXX_STANDARD 20)
  endif()
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  target_link_options(${name} PRIVATE "-Wl,--no-as-needed")
  target_link_libraries(${name} PRIVATE "${LIBTORCH_DIR}/libtorch_cpu.so" "${LIBTORCH_DIR}/libc10.so")
  set_target_properties(${name} PROPERTIES BUILD_RPATH "${LIBTORCH_DIR}")
endfunction()
