# lit configuration for graphc: FileCheck tests of the dialects and passes,
# importer tests on ONNX models generated at test time, and tool tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "graphc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "unit", "e2e", "conformance", "models"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.graphc_obj_root, "test")

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%srcroot", config.graphc_src_root))
config.substitutions.append(("%objroot", config.graphc_obj_root))
# The fake CUDA driver and CUDA emulator (test/runtime/fake_cuda): cuda
# artifacts built with --cuda-emulation run on it without a GPU.
config.substitutions.append(("%fakecuda", os.path.join(config.graphc_obj_root, "test", "runtime", "libgraphc_fake_cuda.so")))
config.substitutions.append(("%testinputs", os.path.join(config.test_source_root, "Inputs")))

# Tests that compile for the cuda target need NVRTC, which a build without
# the CUDA toolkit leaves out: `REQUIRES: cuda-codegen`, or `%if cuda-codegen`
# around the RUN lines of a test that also covers the cpu target.
if config.graphc_cuda_codegen:
    config.available_features.add("cuda-codegen")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
# graphc compile keeps compiled parts in a cache: the tests' own, in the
# build tree, never the user's. (Tests of the cache pass --cache-dir.)
config.environment["GRAPHC_CACHE_DIR"] = os.path.join(config.test_exec_root, "compile-cache")
llvm_config.use_default_substitutions()
tool_dirs = [config.graphc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["graphc-opt", "graphc", "graphc-tblgen", "FileCheck", "not", "count"], tool_dirs)
# MLIR's .td files, which graphc-tblgen's test inputs include.
config.substitutions.append(("%mlir_include", config.mlir_include_dir))
