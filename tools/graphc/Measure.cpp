//===- Measure.cpp - timing one artifact's kernels on the GPU -------------===//

#include "tools/graphc/Measure.h"

#include "graphc/runtime.h"
#include "lib/Artifact/OnnxDtype.h"
#include "lib/Support/Median.h"
#include "lib/Support/WriteFile.h"
#include "tools/graphc/Commands.h"
#include "tools/graphc/RuntimeSupport.h"

#include "CLI/CLI.hpp"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <random>
#include <string_view>

extern char **environ;

namespace graphc::tools {
namespace {

/// Copies of the inputs runs rotate through, so that no run finds its
/// inputs in L2 from the run before.
constexpr int kInputCopies = 4;

/// Deterministic inputs: floats uniform in [-1, 1], integers and booleans 1
/// (a valid index, length and mask value for every model graphc knows).
std::vector<char> makeInput(int32_t dtype, int64_t elements, uint32_t seed) {
  // Packed 4-bit elements (two a byte): each 1.
  if (rt::isFourBitDtype(dtype))
    return std::vector<char>(
        static_cast<size_t>(rt::storageBytes(dtype, elements)), 0x11);
  size_t size = graphc_dtype_size(dtype);
  std::vector<char> bytes(static_cast<size_t>(elements) * size);
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int64_t i = 0; i < elements; ++i) {
    char *at = bytes.data() + i * size;
    switch (dtype) {
    case 1: {
      float value = uniform(random);
      std::memcpy(at, &value, 4);
      break;
    }
    case 11: {
      double value = uniform(random);
      std::memcpy(at, &value, 8);
      break;
    }
    case 10:
    case 16: {
      // Halves of floats with few mantissa bits are exact in both.
      float value = std::round(uniform(random) * 64.0f) / 64.0f;
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      uint16_t half;
      if (dtype == 16) {
        half = static_cast<uint16_t>(bits >> 16);
      } else {
        uint32_t sign = (bits >> 16) & 0x8000u;
        int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
        uint32_t mantissa = (bits >> 13) & 0x3ffu;
        half = value == 0.0f || exponent <= 0
                   ? static_cast<uint16_t>(sign)
                   : static_cast<uint16_t>(sign | (exponent << 10) | mantissa);
      }
      std::memcpy(at, &half, 2);
      break;
    }
    default: {
      // Little-endian 1 in the element's width.
      std::memset(at, 0, size);
      at[0] = 1;
      break;
    }
    }
  }
  return bytes;
}

} // namespace

/// Runs every plan of the artifact at `path`: once for its outputs, then
/// `warmup` + `repeats` times timing its steps.
llvm::Expected<Measurement> measure(const std::string &path,
                                    const TuneSettings &flags) {
  auto open = openModel(path, flags.device, GRAPHC_SESSION_PROFILE_STEPS);
  if (!open)
    return open.takeError();
  graphc_model *model = open->model.get();
  graphc_session *session = open->session.get();
  SessionBuffers buffers(session);
  DLDevice device{kDLCUDA, flags.device};

  Measurement result;
  std::vector<uint64_t> kernelHashes(graphc_model_kernel_count(model));
  for (int32_t k = 0; k < graphc_model_kernel_count(model); ++k) {
    graphc_kernel_info info;
    if (graphc_status status = graphc_model_kernel_info(model, k, &info))
      return toError(status);
    kernelHashes[k] = info.content_hash;
    result.kernelInfo[info.content_hash] = {info.kind, info.onnx_nodes};
  }
  int32_t numInputs = graphc_model_input_count(model);
  int32_t numOutputs = graphc_model_output_count(model);
  for (int32_t p = 0; p < graphc_model_plan_count(model); ++p) {
    graphc_plan_info plan;
    if (graphc_status status = graphc_model_plan_info(model, p, &plan))
      return toError(status);
    result.planNames.push_back(plan.name);
    // Inputs: kInputCopies device copies of one set of values.
    std::vector<std::vector<int64_t>> inputDims(numInputs);
    std::vector<std::vector<DLTensor>> inputs(kInputCopies,
                                              std::vector<DLTensor>(numInputs));
    for (int32_t i = 0; i < numInputs; ++i) {
      graphc_tensor_info info;
      if (graphc_status status = graphc_model_input_info(model, i, &info))
        return toError(status);
      inputDims[i].assign(plan.input_dims[i], plan.input_dims[i] + info.rank);
      int64_t elements = 1;
      for (int64_t d : inputDims[i])
        elements *= d;
      std::vector<char> host =
          makeInput(info.dtype, elements, 1000u + static_cast<uint32_t>(i));
      for (int c = 0; c < kInputCopies; ++c) {
        llvm::Expected<void *> data = buffers.upload(host);
        if (!data)
          return data.takeError();
        DLTensor &tensor = inputs[c][i];
        tensor = DLTensor{};
        tensor.device = device;
        tensor.ndim = info.rank;
        tensor.dtype = dlpackDtype(info.dtype);
        tensor.shape = inputDims[i].data();
        tensor.data = *data;
      }
    }
    std::vector<std::vector<int64_t>> outputDims(numOutputs);
    std::vector<DLTensor> outputs(numOutputs);
    std::vector<uint64_t> outputBytes(numOutputs);
    std::vector<std::pair<int32_t, std::string>> outputInfo;
    for (int32_t o = 0; o < numOutputs; ++o) {
      graphc_tensor_info info;
      if (graphc_status status = graphc_model_output_info(model, o, &info))
        return toError(status);
      outputInfo.push_back({info.dtype, info.name});
      outputDims[o].assign(plan.output_dims[o],
                           plan.output_dims[o] + info.rank);
      uint64_t elements = 1;
      for (int64_t d : outputDims[o])
        elements *= static_cast<uint64_t>(d);
      outputBytes[o] = graphc_dtype_bytes(info.dtype, elements);
      std::vector<char> zeros(outputBytes[o]);
      llvm::Expected<void *> data = buffers.upload(zeros);
      if (!data)
        return data.takeError();
      DLTensor &tensor = outputs[o];
      tensor.device = device;
      tensor.ndim = info.rank;
      tensor.dtype = dlpackDtype(info.dtype);
      tensor.shape = outputDims[o].data();
      tensor.data = *data;
    }
    auto runOnce = [&](int copy) -> llvm::Error {
      if (graphc_status status =
              graphc_session_run(session, inputs[copy].data(), numInputs,
                                 nullptr, outputs.data(), numOutputs))
        return toError(status);
      return llvm::Error::success();
    };
    // The outputs of the first run are what the schedules are compared by.
    if (llvm::Error e = runOnce(0))
      return std::move(e);
    std::vector<std::vector<char>> hostOutputs(numOutputs);
    for (int32_t o = 0; o < numOutputs; ++o) {
      hostOutputs[o].resize(outputBytes[o]);
      if (outputBytes[o] == 0)
        continue;
      if (graphc_status status = graphc_session_download(
              session, hostOutputs[o].data(), outputs[o].data, outputBytes[o]))
        return toError(status);
    }
    result.outputs.push_back(std::move(hostOutputs));
    result.outputInfo.push_back(std::move(outputInfo));

    std::vector<std::vector<double>> stepSamples(plan.num_steps);
    for (int r = 0; r < flags.warmup + flags.repeats; ++r) {
      if (llvm::Error e = runOnce(r % kInputCopies))
        return std::move(e);
      if (r < flags.warmup)
        continue;
      std::vector<double> micros(plan.num_steps);
      int32_t profiledPlan = -1, steps = 0;
      if (graphc_status status = graphc_session_step_times(
              session, &profiledPlan, micros.data(), plan.num_steps, &steps))
        return toError(status);
      if (profiledPlan != p || steps != plan.num_steps)
        return llvm::createStringError("tune: a run of plan '" +
                                       std::string(plan.name) +
                                       "' profiled another plan");
      for (int32_t s = 0; s < plan.num_steps; ++s)
        stepSamples[s].push_back(micros[s]);
    }
    for (int32_t s = 0; s < plan.num_steps; ++s) {
      graphc_step_info step;
      if (graphc_status status = graphc_model_step_info(model, p, s, &step))
        return toError(status);
      if (step.kind != GRAPHC_STEP_LAUNCH &&
          step.kind != GRAPHC_STEP_LIBRARY_CALL)
        continue;
      uint64_t hash = kernelHashes[step.kernel];
      result.kernelMicros[hash] += median(stepSamples[s]);
      if (step.kind == GRAPHC_STEP_LIBRARY_CALL) {
        result.libraryKernels.insert(hash);
        continue;
      }
      Launch launch;
      std::memcpy(launch.grid, step.grid, sizeof(launch.grid));
      std::memcpy(launch.block, step.block, sizeof(launch.block));
      launch.sharedBytes = step.shared_bytes;
      result.kernelLaunches[hash].push_back(launch);
    }
  }
  if (flags.libraryCandidates) {
    // Every algorithm of every library kernel a step calls, built as the
    // session builds its own and timed on the session's memory: one
    // measuring process instead of one artifact per algorithm.
    for (int32_t k = 0; k < graphc_model_kernel_count(model); ++k) {
      graphc_library_kernel_info info;
      if (graphc_status status =
              graphc_session_library_kernel_info(session, k, &info))
        return toError(status);
      if (info.library == GRAPHC_LIBRARY_NONE || info.fused < 0 ||
          result.libraryCandidates.count(kernelHashes[k]))
        continue;
      // cuDNN's SDPA engines are not timed (the session runs the
      // heuristic's choice, or graphc's attention kernel where cuDNN has
      // none): tuning leaves attention as it is.
      graphc_kernel_info kernel;
      if (graphc_status status = graphc_model_kernel_info(model, k, &kernel))
        return toError(status);
      if (std::string_view(kernel.kind) == "attention")
        continue;
      std::vector<graphc_library_candidate> candidates(GRAPHC_MAX_ALGO_RANKS *
                                                       5);
      int32_t count = 0;
      if (graphc_status status = graphc_session_time_library_kernel(
              session, k, GRAPHC_MAX_ALGO_RANKS, /*split_k=*/1, flags.warmup,
              flags.repeats, candidates.data(),
              static_cast<int32_t>(candidates.size()), &count))
        return toError(status);
      auto &timings = result.libraryCandidates[kernelHashes[k]];
      for (int32_t c = 0; c < count && c < int32_t(candidates.size()); ++c)
        timings.push_back(
            {candidates[c].rank, candidates[c].split_k, candidates[c].micros});
    }
  }
  return result;
}
namespace {

/// The measuring process's result file: a magic line, then the
/// Measurement's fields in order, sizes and numbers in host byte order
/// (the file never leaves the machine, nor outlives the tuning run).
constexpr llvm::StringLiteral kMagic = "graphc measurement 2\n";

class Writer {
public:
  explicit Writer(std::string &out) : out(out) {}
  template <typename T> void number(T value) {
    out.append(reinterpret_cast<const char *>(&value), sizeof(value));
  }
  void bytes(llvm::StringRef data) {
    number<uint64_t>(data.size());
    out.append(data.data(), data.size());
  }

private:
  std::string &out;
};

class Reader {
public:
  explicit Reader(llvm::StringRef in) : in(in) {}
  template <typename T> bool number(T &value) {
    if (in.size() < sizeof(T))
      return false;
    std::memcpy(&value, in.data(), sizeof(T));
    in = in.drop_front(sizeof(T));
    return true;
  }
  bool bytes(std::string &data) {
    uint64_t size;
    if (!number(size) || size > in.size())
      return false;
    data.assign(in.data(), size);
    in = in.drop_front(size);
    return true;
  }
  /// A count of entries that take at least `least` bytes each.
  bool count(uint64_t &value, size_t least) {
    return number(value) && value <= in.size() / std::max<size_t>(least, 1);
  }
  /// A count of entries that take at least `least` bytes each, then each
  /// entry through `entry`, which returns false when it is malformed.
  template <typename Entry> bool entries(size_t least, Entry entry) {
    uint64_t entries;
    if (!count(entries, least))
      return false;
    for (uint64_t i = 0; i < entries; ++i)
      if (!entry())
        return false;
    return true;
  }
  bool done() const { return in.empty(); }

private:
  llvm::StringRef in;
};

std::string serialize(const Measurement &m) {
  std::string out(kMagic);
  Writer w(out);
  w.number<uint64_t>(m.planNames.size());
  for (size_t p = 0; p < m.planNames.size(); ++p) {
    w.bytes(m.planNames[p]);
    w.number<uint64_t>(m.outputs[p].size());
    for (size_t o = 0; o < m.outputs[p].size(); ++o) {
      w.number<int32_t>(m.outputInfo[p][o].first);
      w.bytes(m.outputInfo[p][o].second);
      w.bytes(llvm::StringRef(m.outputs[p][o].data(), m.outputs[p][o].size()));
    }
  }
  w.number<uint64_t>(m.kernelMicros.size());
  for (const auto &[hash, micros] : m.kernelMicros) {
    w.number(hash);
    w.number(micros);
  }
  w.number<uint64_t>(m.kernelLaunches.size());
  for (const auto &[hash, launches] : m.kernelLaunches) {
    w.number(hash);
    w.number<uint64_t>(launches.size());
    for (const Launch &launch : launches)
      for (uint32_t value :
           {launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0],
            launch.block[1], launch.block[2], launch.sharedBytes})
        w.number(value);
  }
  w.number<uint64_t>(m.libraryKernels.size());
  for (uint64_t hash : m.libraryKernels)
    w.number(hash);
  w.number<uint64_t>(m.kernelInfo.size());
  for (const auto &[hash, info] : m.kernelInfo) {
    w.number(hash);
    w.bytes(info.first);
    w.bytes(info.second);
  }
  w.number<uint64_t>(m.libraryCandidates.size());
  for (const auto &[hash, timings] : m.libraryCandidates) {
    w.number(hash);
    w.number<uint64_t>(timings.size());
    for (const Measurement::LibraryTiming &timing : timings) {
      w.number(timing.rank);
      w.number(timing.splitK);
      w.number(timing.micros);
    }
  }
  return out;
}

bool deserialize(llvm::StringRef in, Measurement &m) {
  if (!in.consume_front(kMagic))
    return false;
  Reader r(in);
  uint64_t plans;
  if (!r.count(plans, 16))
    return false;
  m.planNames.resize(plans);
  m.outputs.resize(plans);
  m.outputInfo.resize(plans);
  for (uint64_t p = 0; p < plans; ++p) {
    if (!r.bytes(m.planNames[p]) || !r.entries(20, [&] {
          int32_t dtype;
          std::string name, data;
          if (!r.number(dtype) || !r.bytes(name) || !r.bytes(data))
            return false;
          m.outputInfo[p].push_back({dtype, std::move(name)});
          m.outputs[p].emplace_back(data.begin(), data.end());
          return true;
        }))
      return false;
  }
  uint64_t hash;
  if (!r.entries(16, [&] {
        double micros;
        if (!r.number(hash) || !r.number(micros))
          return false;
        m.kernelMicros[hash] = micros;
        return true;
      }))
    return false;
  if (!r.entries(16, [&] {
        if (!r.number(hash))
          return false;
        std::vector<Launch> &list = m.kernelLaunches[hash];
        return r.entries(28, [&] {
          Launch launch;
          for (uint32_t *value :
               {&launch.grid[0], &launch.grid[1], &launch.grid[2],
                &launch.block[0], &launch.block[1], &launch.block[2],
                &launch.sharedBytes})
            if (!r.number(*value))
              return false;
          list.push_back(launch);
          return true;
        });
      }))
    return false;
  if (!r.entries(8, [&] {
        if (!r.number(hash))
          return false;
        m.libraryKernels.insert(hash);
        return true;
      }))
    return false;
  if (!r.entries(24, [&] {
        std::string kind, nodes;
        if (!r.number(hash) || !r.bytes(kind) || !r.bytes(nodes))
          return false;
        m.kernelInfo[hash] = {std::move(kind), std::move(nodes)};
        return true;
      }))
    return false;
  if (!r.entries(16, [&] {
        if (!r.number(hash))
          return false;
        auto &list = m.libraryCandidates[hash];
        return r.entries(16, [&] {
          Measurement::LibraryTiming timing;
          if (!r.number(timing.rank) || !r.number(timing.splitK) ||
              !r.number(timing.micros))
            return false;
          list.push_back(timing);
          return true;
        });
      }))
    return false;
  return r.done();
}

/// This executable's path, for starting the measuring process.
llvm::Expected<std::string> selfPath() {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0)
    return llvm::createStringError(
        std::string("tune: cannot find graphc's own executable: ") +
        std::strerror(errno));
  return std::string(path, static_cast<size_t>(length));
}

/// The last diagnostic graphc printed into the log at `path` (its
/// "graphc: " lines; a crash's stack dump is no reason), or "".
std::string lastDiagnostic(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "";
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : llvm::reverse(lines))
    if (line.starts_with("graphc: "))
      return line.rtrim().str();
  return "";
}

} // namespace

llvm::Expected<Measurement> measureInProcess(const std::string &path,
                                             const TuneSettings &settings,
                                             const std::string &scratch) {
  auto self = selfPath();
  if (!self)
    return self.takeError();
  std::string stem = path.substr(path.rfind('/') + 1);
  std::string result = scratch + "/" + stem + ".measurement";
  std::string log = scratch + "/" + stem + ".log";
  std::vector<std::string> args = {*self,
                                   "tune",
                                   "measure-artifact",
                                   path,
                                   "--result",
                                   result,
                                   "--device",
                                   std::to_string(settings.device),
                                   "--repeats",
                                   std::to_string(settings.repeats),
                                   "--warmup",
                                   std::to_string(settings.warmup)};
  if (settings.libraryCandidates)
    args.push_back("--library-candidates");
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid;
  int spawned =
      posix_spawn(&pid, self->c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    return llvm::createStringError(
        std::string("cannot start the measuring process: ") +
        std::strerror(spawned));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return llvm::createStringError(
          std::string("cannot wait for the measuring process: ") +
          std::strerror(errno));
  if (WIFSIGNALED(status)) {
    std::string said = lastDiagnostic(log);
    return llvm::createStringError(
        "the measuring process was killed by signal " +
        std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
        ")" + (said.empty() ? "" : ": " + said));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string said = lastDiagnostic(log);
    llvm::StringRef reason(said);
    reason.consume_front("graphc: error: ");
    return llvm::createStringError(
        reason.empty() ? "the measuring process exited with status " +
                             std::to_string(WEXITSTATUS(status))
                       : reason.str());
  }
  auto buffer = llvm::MemoryBuffer::getFile(result);
  Measurement measurement;
  if (!buffer || !deserialize((*buffer)->getBuffer(), measurement))
    return llvm::createStringError("the measuring process wrote no "
                                   "readable result (" +
                                   result + ")");
  return measurement;
}

void addMeasureArtifactCommand(CLI::App &tune, int &exitCode) {
  struct Flags {
    std::string artifact, result;
    TuneSettings settings;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App *cmd = tune.add_subcommand(
      "measure-artifact", "measure one artifact (graphc tune's measuring "
                          "process)");
  cmd->group("");
  cmd->add_option("artifact", flags->artifact)->required();
  cmd->add_option("--result", flags->result)->required();
  cmd->add_option("--device", flags->settings.device);
  cmd->add_option("--repeats", flags->settings.repeats);
  cmd->add_option("--warmup", flags->settings.warmup);
  cmd->add_flag("--library-candidates", flags->settings.libraryCandidates);
  cmd->callback([flags, &exitCode] {
    auto measured = measure(flags->artifact, flags->settings);
    if (!measured) {
      exitCode = reportError(measured.takeError());
      return;
    }
    if (llvm::Error error =
            writeFileAtomically(flags->result, [&](llvm::raw_ostream &out) {
              out << serialize(*measured);
              return llvm::Error::success();
            })) {
      exitCode = reportError(std::move(error));
      return;
    }
    exitCode = 0;
  });
}

} // namespace graphc::tools
