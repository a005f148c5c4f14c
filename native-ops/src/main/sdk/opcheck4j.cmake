# The compile settings of an op library that opcheck4j loads: the stable-ABI headers, pinned to the
# libtorch 2.10 runtime of the JavaCPP presets the harness runs on, linked against that libtorch.
# native-ops builds with it, and it ships in opcheck4j-native-ops-<version>-sdk.zip with torch-headers.sh,
# which the op-library archetype's projects unpack and run.
#
# Inputs:
#   LIBTORCH_DIR_FILE   file holding the directory of the libtorch_cpu.so JavaCPP extracted
#                       (written by dev.opcheck4j.nativeops.LibtorchLocator)
#   TORCH_INCLUDE_DIR   the LibTorch include directory, or
#   TORCH_HEADERS_FILE  the file holding it (include-dir.txt, written by torch-headers.sh)
# Gives: op_library(name sources...), a shared library linked against that libtorch.
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

# The headers are newer than the runtime: TORCH_TARGET_VERSION makes them expose only the stable ABI
# of 2.10, so the library loads into libtorch 2.10. JavaCPP's libtorch uses the C++11 std::string ABI.
add_library(torch_stable INTERFACE)
target_include_directories(torch_stable SYSTEM INTERFACE "${TORCH_INCLUDE_DIR}")
target_compile_definitions(torch_stable INTERFACE
  TORCH_TARGET_VERSION=0x020a000000000000 _GLIBCXX_USE_CXX11_ABI=1)
target_link_options(torch_stable INTERFACE "-Wl,--no-as-needed")
target_link_libraries(torch_stable INTERFACE
  "${LIBTORCH_DIR}/libtorch_cpu.so" "${LIBTORCH_DIR}/libc10.so")

function(op_library name)
  add_library(${name} SHARED ${ARGN})
  target_link_libraries(${name} PRIVATE torch_stable)
  target_include_directories(${name} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  set_target_properties(${name} PROPERTIES BUILD_RPATH "${LIBTORCH_DIR}")
endfunction()
