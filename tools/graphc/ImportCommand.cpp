//===- ImportCommand.cpp - `graphc import` --------------------------------===//
//
// Prints a model in the graph dialect. With --verify-only it imports and
// verifies any number of models, one result line each, which is how the
// conformance script walks the ONNX node tests in few processes.
//
//===----------------------------------------------------------------------===//

#include "tools/graphc/Commands.h"

#include "lib/Import/ONNX/ONNXImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <memory>

namespace graphc::tools {

namespace {

struct ImportCommandOptions {
  std::vector<std::string> models;
  std::string output = "-";
  bool printWeights = false;
  bool printLocations = false;
  bool verifyOnly = false;
};

/// Imports each model in a fresh context (weights blobs live as long as
/// their context) and prints "ok <path>" or "error <path>: <message>".
int verifyModels(const ImportCommandOptions &options) {
  int exitCode = 0;
  for (const std::string &model : options.models) {
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    auto module = importONNXModel(model, context);
    if (module) {
      llvm::outs() << "ok " << model << "\n";
    } else {
      llvm::outs() << "error " << model << ": "
                   << llvm::toString(module.takeError()) << "\n";
      exitCode = 1;
    }
    // Flushed per model so that a crash still leaves the earlier results.
    llvm::outs().flush();
  }
  return exitCode;
}

int importModel(const ImportCommandOptions &options) {
  if (options.models.size() != 1)
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "import takes one model unless --verify-only is given"));
  if (options.output != "-" && llvm::sys::fs::is_directory(options.output))
    return reportError(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                               "output '" + options.output +
                                                   "' is a directory"));

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  auto module = importONNXModel(options.models.front(), context);
  if (!module)
    return reportError(module.takeError());

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(options.output, &errorMessage);
  if (!output)
    return reportError(
        llvm::createStringError(llvm::inconvertibleErrorCode(), errorMessage));
  mlir::OpPrintingFlags flags;
  // Without weights, print the module as a nested op: that prints no
  // dialect_resources section at all. (elideLargeResourceString in MLIR 19
  // renders every blob to a hex string, twice its size, before eliding it.)
  if (!options.printWeights)
    flags.useLocalScope();
  if (options.printLocations)
    flags.enableDebugInfo();
  (*module)->print(output->os(), flags);
  output->os() << "\n";
  output->keep();
  return 0;
}

} // namespace

void addImportCommand(CLI::App &app, int &exitCode) {
  auto options = std::make_shared<ImportCommandOptions>();
  CLI::App *command =
      app.add_subcommand("import", "Print an ONNX model in the graph dialect");
  command->add_option("models", options->models, "ONNX model(s) (.onnx)")
      ->required();
  command->add_option("-o,--output", options->output,
                      "Output file (default: stdout)");
  command->add_flag("--print-weights", options->printWeights,
                    "Print weight blobs instead of eliding them");
  command->add_flag("--print-locations", options->printLocations,
                    "Print locations (ONNX node names)");
  command->add_flag("--verify-only", options->verifyOnly,
                    "Import and verify each model; print one line per model");
  command->callback([options, &exitCode] {
    exitCode =
        options->verifyOnly ? verifyModels(*options) : importModel(*options);
  });
}

} // namespace graphc::tools
