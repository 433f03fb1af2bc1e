#===- GraphcStatic.cmake - a self-contained graphc binary ------------------===#
#
# With GRAPHC_STATIC=ON graphc links MLIR, LLVM and protobuf from their static
# archives and the ONNX protobuf classes from onnx.proto compiled here, so one
# binary runs on machines without MLIR, LLVM, protobuf or ONNX libraries (the
# GPU machines). graphc needs only the ONNX protobuf classes, never libonnx's
# checker or shape inference, so libonnx is not linked at all.
#
# Compile flags are those of the regular build, so its objects come from the
# compiler cache; LLVM's and MLIR's archives are already built with one section
# per function, which --gc-sections prunes to what graphc reaches.
#
#===------------------------------------------------------------------------===#

# The MLIR components graphc uses; their LLVM dependencies follow from MLIR's
# exported targets.
set(GRAPHC_MLIR_LIBS
  MLIRIR
  MLIRSupport
  MLIRFuncDialect
  MLIRPass
  MLIRTransformUtils
  MLIRRewrite
  MLIRSideEffectInterfaces
  MLIRInferTypeOpInterface
  MLIRControlFlowInterfaces
  MLIRCallInterfaces
  MLIRFunctionInterfaces
  MLIRBytecodeOpInterface
  LLVMSupport)
set(GRAPHC_LLVM_LIBS LLVMSupport)

# Debian's LLVMSupport names shared z3, zlib and zstd for solver and
# compression code that graphc never reaches; left out, the link shows whether
# anything does. (zstd has no development package here at all.)
set_property(TARGET LLVMSupport PROPERTY INTERFACE_LINK_LIBRARIES
  rt dl m LLVMDemangle)

# Debian builds MLIR against the LLVM dylib, so its static libraries name the
# shared `LLVM` as their dependency: point them at the static components.
foreach(target IN LISTS MLIR_EXPORTED_TARGETS)
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    continue()
  endif()
  get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  if(deps AND "LLVM" IN_LIST deps)
    list(TRANSFORM deps REPLACE "^LLVM$" "LLVMSupport")
    set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${deps}")
  endif()
endforeach()

# onnx.proto as Debian ships it asks for the lite runtime; its headers were
# generated without that option (full messages, ONNX_API on exported names), so
# the same protoc run here gives a header identical to /usr/include/onnx's.
set(GRAPHC_ONNX_PROTO_SOURCE /usr/include/onnx/onnx.proto CACHE FILEPATH
  "onnx.proto matching the installed onnx/onnx-ml.pb.h")
set(graphc_onnx_gen ${PROJECT_BINARY_DIR}/onnx_proto)
file(READ ${GRAPHC_ONNX_PROTO_SOURCE} graphc_onnx_proto_text)
string(REPLACE "option optimize_for = LITE_RUNTIME;" ""
  graphc_onnx_proto_text "${graphc_onnx_proto_text}")
file(CONFIGURE OUTPUT ${graphc_onnx_gen}/onnx/onnx-ml.proto
  CONTENT "${graphc_onnx_proto_text}" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${GRAPHC_ONNX_PROTO_SOURCE})
add_custom_command(
  OUTPUT ${graphc_onnx_gen}/onnx/onnx-ml.pb.cc ${graphc_onnx_gen}/onnx/onnx-ml.pb.h
  COMMAND protobuf::protoc --cpp_out=dllexport_decl=ONNX_API:${graphc_onnx_gen}
          -I${graphc_onnx_gen} ${graphc_onnx_gen}/onnx/onnx-ml.proto
  DEPENDS ${graphc_onnx_gen}/onnx/onnx-ml.proto protobuf::protoc
  COMMENT "Generating the ONNX protobuf classes")

# Same name as libonnx's imported target, so the importer links it unchanged.
# Its users keep including /usr/include/onnx/onnx_pb.h (identical header).
add_library(onnx_proto STATIC ${graphc_onnx_gen}/onnx/onnx-ml.pb.cc)
target_include_directories(onnx_proto PRIVATE ${graphc_onnx_gen})
target_compile_definitions(onnx_proto
  PUBLIC ONNX_NAMESPACE=onnx ONNX_ML=1
  PRIVATE ONNX_API=)
target_link_libraries(onnx_proto PUBLIC protobuf::libprotobuf)

# One static binary: libstdc++ and libgcc too, so that the glibc of the build
# machine is the only requirement. --gc-sections drops unreachable functions,
# -s the symbol tables.
add_link_options(-static-libstdc++ -static-libgcc -Wl,--gc-sections -s)
# Those libraries bring the build machine's newest glibc symbol versions
# (arc4random 2.36, _dl_find_object 2.35); GlibcCompat.c defines both from
# older calls so that the binaries start on glibc 2.34 (Ubuntu 22.04, RHEL 9).
# It is compiled here, at configure time, so that every link of the build,
# executables and shared libraries alike, can take the object as an input.
set(graphc_glibc_compat ${PROJECT_BINARY_DIR}/GlibcCompat.o)
execute_process(
  COMMAND ${CMAKE_C_COMPILER} -O2 -fPIC -fvisibility=hidden -Wall -Werror
          -c ${PROJECT_SOURCE_DIR}/cmake/GlibcCompat.c -o ${graphc_glibc_compat}
  RESULT_VARIABLE graphc_glibc_compat_result
  ERROR_VARIABLE graphc_glibc_compat_error)
if(NOT graphc_glibc_compat_result EQUAL 0)
  message(FATAL_ERROR "cmake/GlibcCompat.c does not compile:\n"
    "${graphc_glibc_compat_error}")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/cmake/GlibcCompat.c)
add_link_options(${graphc_glibc_compat})
# NVRTC stays shared (the CUDA toolkit ships no static NVRTC): look where the
# toolkit installs it on x86-64 machines, besides the build machine's path.
add_link_options(-Wl,-rpath,/usr/local/cuda/lib64)
