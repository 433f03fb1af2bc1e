#===- Sanitizers.cmake - sanitizer and libFuzzer builds -----------------===#
#
# GRAPHC_SANITIZE=address,undefined or thread instruments graphc's own code;
# the Debian LLVM, MLIR, protobuf and GoogleTest libraries stay as they are
# (same libstdc++, so clang-built objects link with the gcc-built libraries).
# GRAPHC_FUZZ=ON builds the targets of test/fuzz, which add libFuzzer
# coverage to the libraries they fuzz. Both need clang.
#
#===----------------------------------------------------------------------===#

set(GRAPHC_SANITIZE "" CACHE STRING
  "Sanitizers for graphc's code: empty, address,undefined or thread")
option(GRAPHC_FUZZ "Build the libFuzzer targets of test/fuzz (clang only)" OFF)

if(NOT GRAPHC_SANITIZE AND NOT GRAPHC_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR
   NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "GRAPHC_SANITIZE and GRAPHC_FUZZ need clang "
    "(configure with -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19)")
endif()

# Line tables are enough for symbolized reports and keep the build small.
set(GRAPHC_SANITIZER_FLAGS -fno-omit-frame-pointer -gline-tables-only)
if(GRAPHC_SANITIZE STREQUAL "address,undefined")
  # vptr checks need RTTI for every class, which libMLIR and the -fno-rtti
  # targets do not have; the other UBSan checks abort on the first report.
  list(APPEND GRAPHC_SANITIZER_FLAGS -fsanitize=address,undefined
    -fno-sanitize=vptr -fno-sanitize-recover=undefined)
elseif(GRAPHC_SANITIZE STREQUAL "thread")
  if(GRAPHC_FUZZ)
    message(FATAL_ERROR "GRAPHC_FUZZ needs GRAPHC_SANITIZE=address,undefined")
  endif()
  list(APPEND GRAPHC_SANITIZER_FLAGS -fsanitize=thread)
elseif(GRAPHC_SANITIZE)
  message(FATAL_ERROR "GRAPHC_SANITIZE must be address,undefined or thread, "
    "not '${GRAPHC_SANITIZE}'")
else()
  message(FATAL_ERROR "GRAPHC_FUZZ needs GRAPHC_SANITIZE=address,undefined")
endif()

add_compile_options(${GRAPHC_SANITIZER_FLAGS})
# Debian's gcc links --as-needed by default and the main build relies on it
# (the CUDA codegen names the driver stub, which no CI machine can load).
add_link_options(${GRAPHC_SANITIZER_FLAGS} -Wl,--as-needed)
if(GRAPHC_SANITIZE STREQUAL "address,undefined")
  # Executables link the ASan runtime statically. An uninstrumented process
  # that loads the instrumented runtime library (Python running the
  # conformance tests) preloads this shared copy instead.
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER}
            -print-file-name=libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so
    OUTPUT_VARIABLE GRAPHC_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${GRAPHC_ASAN_RUNTIME}")
    message(FATAL_ERROR "the shared ASan runtime was not found "
      "(install libclang-rt-19-dev)")
  endif()
endif()
