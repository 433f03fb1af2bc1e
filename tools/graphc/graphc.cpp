//===- graphc.cpp - the graphc command-line driver ------------------------===//
//
// Every error graphc prints, from a command, from parsing the command line or
// from an unexpected exception, is one line starting "graphc: error: ", and
// the exit status is 1.
//
//===----------------------------------------------------------------------===//

#include "tools/graphc/Commands.h"
#include "tools/graphc/RuntimeCommands.h"

#include "graphc/BuildConfig.h"
#include "graphc/Revision.h"
#if GRAPHC_HAVE_CUDA_CODEGEN
#include "lib/Codegen/CUDA/NVRTCCompiler.h"
#include "lib/Import/ONNX/ONNXImporter.h"
#endif

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <new>

namespace graphc::tools {

int reportError(llvm::Error error) {
  llvm::handleAllErrors(std::move(error), [](const llvm::ErrorInfoBase &info) {
    llvm::WithColor::error(llvm::errs(), "graphc") << info.message() << "\n";
  });
  return 1;
}

namespace {

int reportErrorMessage(const std::string &message) {
  return reportError(
      llvm::createStringError(llvm::inconvertibleErrorCode(), message));
}

/// What `graphc --version` prints: no dates, so that it only changes with
/// the sources and the toolchain.
std::string versionText() {
  std::string text = "graphc " GRAPHC_VERSION_STRING "\n"
                     "revision: " GRAPHC_GIT_REVISION "\n"
                     "MLIR/LLVM: " GRAPHC_LLVM_VERSION "\n";
#if GRAPHC_HAVE_CUDA_CODEGEN
  text += "cuda target: NVRTC " + codegen::nvrtcVersionString() +
          " (built with CUDA toolkit " GRAPHC_CUDA_TOOLKIT_VERSION ")\n";
#else
  text += "cuda target: not built (no CUDA toolkit/NVRTC at build time)\n";
#endif
  text += "cpu target: built\n";
  text += "ONNX opsets: " + describeSupportedOpsets();
  return text;
}

} // namespace
} // namespace graphc::tools

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CLI::App app{"graphc: ahead-of-time compiler for ONNX models"};
  app.set_version_flag("--version", graphc::tools::versionText,
                       "Print graphc's version, revision and the MLIR and "
                       "CUDA versions it was built with");
  app.require_subcommand(1);
  int exitCode = 0;
  graphc::tools::addCheckCommand(app, exitCode);
  graphc::tools::addImportCommand(app, exitCode);
  graphc::tools::addCompileCommand(app, exitCode);
  graphc::tools::addCacheCommand(app, exitCode);
  graphc::tools::addTuneCommand(app, exitCode);
  graphc::tools::addRunCommand(app, exitCode);
  graphc::tools::addInspectCommand(app, exitCode);
  graphc::tools::addVerifyCommand(app, exitCode);
  graphc::tools::addTritonCommand(app, exitCode);
  // The chosen command runs inside parse(), so this also catches what
  // escapes a command.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version end parsing with a success "error".
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return app.exit(e);
    std::string message = e.what();
    // CLI11 reports a mistyped command as a missing one.
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
      message = "unknown command '" + std::string(argv[1]) + "'; commands:";
      for (const CLI::App *command : app.get_subcommands({}))
        message += " " + command->get_name();
    }
    std::replace(message.begin(), message.end(), '\n', ' ');
    return graphc::tools::reportErrorMessage(message + " (see graphc --help)");
  } catch (const std::bad_alloc &) {
    return graphc::tools::reportErrorMessage("out of memory");
  } catch (const std::exception &e) {
    return graphc::tools::reportErrorMessage(std::string("internal error: ") +
                                             e.what());
  }
  return exitCode;
}
