//===- RuntimeCommands.h - `graphc run` and `graphc inspect` ----*- C++ -*-===//
//
// Subcommands that work on a compiled model .so through the runtime's C API
// or its descriptor (no MLIR involved). Each has an options struct, an entry point returning
// the exit status, and a function registering it on the CLI11 app.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_TOOLS_GRAPHC_RUNTIMECOMMANDS_H
#define GRAPHC_TOOLS_GRAPHC_RUNTIMECOMMANDS_H

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace graphc::tools {

struct RunOptions {
  std::string model;
  /// "NAME=FILE" or positional "FILE"; .npy or ONNX TensorProto .pb files.
  std::vector<std::string> inputs;
  /// Where <output>.npy files go; none written when empty.
  std::string outputDir;
  int repeat = 1;
  int device = 0;
  /// Time every step of every run and print each step's median.
  bool profile = false;
  /// Where --profile also writes the medians as JSON (graphc inspect
  /// --profile reads it); empty: nowhere. Implies `profile`.
  std::string profileJson;
};

/// `graphc run OUT.so --input NAME=FILE ... [--output-dir DIR] [--repeat N]
/// [--profile]`: runs the model, prints output shapes and the median
/// latency (and with --profile each step's median time).
int runRunCommand(const RunOptions &options);
void addRunCommand(CLI::App &app, int &exitCode);

struct InspectOptions {
  std::string model;
  bool json = false;
  /// The GPU of the roofline estimate (h100, h200, a100).
  std::string gpu = "h100";
  /// List every step of every plan in the text report.
  bool steps = false;
  /// A `graphc run --profile-json` file: its plan's steps get their
  /// measured time and achieved fraction of the roofline bound.
  std::string profile;
};

/// `graphc inspect OUT.so [--json] [--gpu h100] [--steps] [--profile FILE]`:
/// target, SMs, inputs,
/// outputs, plans with each step's cost and a roofline estimate, kernels
/// with their ONNX nodes, arena and weight sizes.
int runInspectCommand(const InspectOptions &options);
void addInspectCommand(CLI::App &app, int &exitCode);

struct TritonOptions {
  std::string model;
  std::string repository;
  /// Default: the model file's name without extension.
  std::string name;
  int instances = 1;
  int64_t maxQueueDelayUs = 100;
  bool force = false;
  /// "native" (libtriton_graphc.so), "python" (Triton's Python backend), or
  /// empty: native when graphc was built with it, else python.
  std::string backend;
};

/// `graphc triton OUT.so --repository DIR [--backend native|python]
/// [--name NAME] [--instances N] [--max-queue-delay-us U] [--force]`: a
/// Triton model repository entry (config.pbtxt, the artifact, and the native
/// backend library or the Python backend's entry point).
int runTritonCommand(const TritonOptions &options);
void addTritonCommand(CLI::App &app, int &exitCode);

} // namespace graphc::tools

#endif
