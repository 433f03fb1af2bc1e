//===- Commands.h - the graphc subcommands ----------------------*- C++ -*-===//
//
// Each subcommand lives in its own file and registers itself on the CLI11
// app. After parsing, the chosen subcommand's callback runs and stores the
// process exit status in `exitCode`.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_COMMANDS_H
#define GRAPHC_TOOLS_GRAPHC_COMMANDS_H

#include "llvm/Support/Error.h"

namespace CLI {
class App;
} // namespace CLI

namespace graphc::tools {

/// `graphc check model.onnx [--json]`: what is in the model and whether
/// graphc supports it.
void addCheckCommand(CLI::App &app, int &exitCode);

/// `graphc import model.onnx [-o out.mlir] [--print-weights]`: the model in
/// the graph dialect.
void addImportCommand(CLI::App &app, int &exitCode);

/// `graphc compile`: the whole pipeline to a .so (or an --emit stage).
void addCompileCommand(CLI::App &app, int &exitCode);

/// `graphc cache [--clear | --trim N]`: the compile cache.
void addCacheCommand(CLI::App &app, int &exitCode);

/// `graphc tune model.onnx --db tune.json` measures kernel schedules on the
/// GPU; `graphc tune merge A B -o C` joins tuning databases.
void addTuneCommand(CLI::App &app, int &exitCode);

/// `graphc verify model.onnx model.so [--input NAME=FILE ...]
/// [--random-inputs N] [--rtol R --atol A] [--json] [--all]`: the artifact
/// against graphc's float32 cpu reference of the model, outputs first and,
/// when one fails, step by step.
void addVerifyCommand(CLI::App &app, int &exitCode);

/// "17179869184", "16GiB", "512MiB", "64KiB" -> bytes (positive); `flag`
/// names the option in the error.
llvm::Expected<uint64_t> parseByteSize(llvm::StringRef flag,
                                       llvm::StringRef text);

/// Prints "graphc: error: <message>" to stderr and returns exit status 1.
int reportError(llvm::Error error);

} // namespace graphc::tools

#endif
