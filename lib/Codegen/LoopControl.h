//===- LoopControl.h - the kernels that drive loops on cuda -----*- C++ -*-===//
//
// On cuda a plan's loop (exec.loop, GRAPHC_STEP_LOOP) is a WHILE conditional
// node of the CUDA graph; a small generated kernel decides each iteration:
// before the first (phase 0) and after each (phase 1) it computes whether
// another runs, writes the loop's state and sets the node's condition. Each
// loop's ONNX node and bound get a kernel of their own, so that a run past
// the bound is reported naming the node. The cpu runtime decides on the host
// and needs none.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_LOOPCONTROL_H
#define GRAPHC_LIB_CODEGEN_LOOPCONTROL_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace graphc::exec {
class LoopOp;
}

namespace graphc::codegen {

/// One loop control kernel.
struct LoopControl {
  /// Its symbol: "loop_control_<i>".
  std::string name;
  /// The ONNX Loop it drives.
  std::string node;
  int64_t maxIterations = 0;
};

/// The loop control kernels of `module`'s plans: one per distinct ONNX node
/// and bound of its exec.loop steps, in plan and step order.
std::vector<LoopControl> loopControls(mlir::ModuleOp module);

/// The index in `controls` of the kernel that drives `loop`.
size_t loopControlIndex(const std::vector<LoopControl> &controls,
                        exec::LoopOp loop);

/// The CUDA C++ of `control` (the module preamble declares gc_report and
/// cudaGraphSetConditional). Its parameters are the step's four arguments,
/// the conditional handle, the phase, then the error record and the site.
std::string loopControlSource(const LoopControl &control);

} // namespace graphc::codegen

#endif // GRAPHC_LIB_CODEGEN_LOOPCONTROL_H
