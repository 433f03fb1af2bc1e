//===- graphc.cpp - the graphc command-line driver ------------------------===//

#include "tools/graphc/Commands.h"
#include "tools/graphc/RuntimeCommands.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

namespace graphc::tools {

int reportError(llvm::Error error) {
  llvm::handleAllErrors(std::move(error), [](const llvm::ErrorInfoBase &info) {
    llvm::WithColor::error(llvm::errs(), "graphc") << info.message() << "\n";
  });
  return 1;
}

} // namespace graphc::tools

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CLI::App app{"graphc: ahead-of-time compiler for ONNX models"};
  app.require_subcommand(1);
  int exitCode = 0;
  graphc::tools::addCheckCommand(app, exitCode);
  graphc::tools::addImportCommand(app, exitCode);
  graphc::tools::addCompileCommand(app, exitCode);
  graphc::tools::addRunCommand(app, exitCode);
  graphc::tools::addInspectCommand(app, exitCode);
  CLI11_PARSE(app, argc, argv);
  return exitCode;
}
