//===- LaunchTable.h - the launches CUDA codegen computes -------*- C++ -*-===//
//
// CUDA codegen's result besides the code: how each generated kernel is
// launched and which module unit holds it. ModelSource writes it into the
// descriptor and `graphc compile --emit launches` prints it; the exec IR
// holds no launch.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_LAUNCHTABLE_H
#define GRAPHC_LIB_CODEGEN_LAUNCHTABLE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace graphc::codegen {

/// The launch of one generated kernel at its static shapes.
struct CudaLaunch {
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  /// Dynamic shared memory bytes.
  uint32_t sharedBytes = 0;
  /// The code checks values read at run time (indices, lengths, an axis)
  /// and so takes the session's error record.
  bool reportsErrors = false;
  /// The CUDA module (one NVRTC program) whose images hold the code.
  int32_t unit = 0;
};

/// The launches of a module's generated kernels, by kernel symbol, in the
/// order codegen generated them (module order).
class LaunchTable {
public:
  /// Adds `kernel`'s launch; a kernel is added once.
  void add(llvm::StringRef kernel, const CudaLaunch &launch) {
    index.try_emplace(kernel, entries_.size());
    entries_.emplace_back(kernel.str(), launch);
  }
  /// `kernel`'s launch, or nullptr for a kernel without generated code.
  const CudaLaunch *lookup(llvm::StringRef kernel) const {
    auto found = index.find(kernel);
    return found == index.end() ? nullptr : &entries_[found->second].second;
  }
  llvm::ArrayRef<std::pair<std::string, CudaLaunch>> entries() const {
    return entries_;
  }
  bool empty() const { return entries_.empty(); }

private:
  std::vector<std::pair<std::string, CudaLaunch>> entries_;
  llvm::StringMap<size_t> index;
};

/// Prints `launches` as `graphc compile --emit launches` shows them: one
/// line per generated kernel of `module`, in module order, with its kind,
/// content hash, launch and unit.
void printLaunches(mlir::ModuleOp module, const LaunchTable &launches,
                   llvm::raw_ostream &out);

} // namespace graphc::codegen

#endif // GRAPHC_LIB_CODEGEN_LAUNCHTABLE_H
