//===- LoopControl.cpp - the kernels that drive loops on cuda ------------===//
#include "lib/Codegen/LoopControl.h"

#include "dialects/Exec/ExecOps.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace graphc::codegen {

std::vector<LoopControl> loopControls(ModuleOp module) {
  std::vector<LoopControl> controls;
  module.walk([&](exec::LoopOp loop) {
    LoopControl control{"", loop.getNode().str(),
                        loop.getMaxIterationsAttr().getInt()};
    for (const LoopControl &seen : controls)
      if (seen.node == control.node &&
          seen.maxIterations == control.maxIterations)
        return;
    control.name = "loop_control_" + std::to_string(controls.size());
    controls.push_back(std::move(control));
  });
  return controls;
}

size_t loopControlIndex(const std::vector<LoopControl> &controls,
                        exec::LoopOp loop) {
  for (size_t i = 0; i < controls.size(); ++i)
    if (controls[i].node == loop.getNode() &&
        controls[i].maxIterations == loop.getMaxIterationsAttr().getInt())
      return i;
  return controls.size();
}

std::string loopControlSource(const LoopControl &control) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // One thread. The state's first word is the iteration number the body
  // reads, the second whether another iteration runs (read back by the
  // runtime where no CUDA graph runs the loop).
  os << "// The loop of ONNX node '" << control.node << "'.\n"
     << "extern \"C\" __global__ void __launch_bounds__(1) " << control.name
     << "(const long long *__restrict__ trip_count,\n"
     << "    const bool *__restrict__ condition, long long *__restrict__ "
        "state,\n"
     << "    const bool *__restrict__ body_condition, unsigned long long "
        "handle,\n"
     << "    int phase, unsigned long long *gc_error, unsigned gc_site) {\n"
     << "  long long i = phase ? state[0] + 1 : 0;\n"
     << "  bool go = phase ? (!body_condition || *body_condition)\n"
     << "                  : (!condition || *condition);\n"
     << "  go = go && (!trip_count || i < *trip_count);\n"
     << "  if (go && i >= " << control.maxIterations << "LL) {\n"
     << "    // Past the bound: report the iteration (what 3) and stop.\n"
     << "    gc_report(gc_error, gc_site, i, 0, " << control.maxIterations
     << "LL, 3);\n"
     << "    go = false;\n"
     << "  }\n"
     << "  state[0] = i;\n"
     << "  state[1] = go ? 1 : 0;\n"
     << "  if (handle)\n"
     << "    cudaGraphSetConditional(handle, go ? 1u : 0u);\n"
     << "}\n";
  return text;
}

} // namespace graphc::codegen
