//===- ImporterFuzzer.cpp - fuzzing the ONNX importer ---------------------===//
//
// Bytes as a model file: `graphc check`'s summary, then the import into the
// graph dialect and the verifier. Every input must give a module that
// verifies or a clean error; crashes and sanitizer reports are findings.
//
//===----------------------------------------------------------------------===//

#include "lib/Import/ONNX/ONNXImporter.h"
#include "test/fuzz/ScratchFile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The importer reads a path; its folder holds nothing else, so external
  // data has nothing to find there.
  static graphc::fuzz::ScratchFile model("model.onnx");
  const std::string &path = model.write(data, size);

  if (llvm::Expected<graphc::ModelSummary> summary =
          graphc::summarizeONNXModel(path);
      !summary)
    llvm::consumeError(summary.takeError());

  // A fresh context per input keeps inputs independent of each other.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      graphc::importONNXModel(path, context);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  if (mlir::failed(mlir::verify(**module))) {
    std::fprintf(stderr, "the importer returned a module that does not "
                         "verify\n");
    std::abort();
  }
  return 0;
}
