//===- ModelSource.h - the model's C++ and weights --------------*- C++ -*-===//
//
// The last code generation stage of the .so: from the exec module, the C++
// file that defines the descriptor as static tables and, on the cpu target,
// the kernels (host kernel calls and generated loops), and the weights image
// the descriptor's offsets point into. SharedObjectWriter only packages what
// this produces: it compiles, links, seals and puts the file in place.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_CODEGEN_MODELSOURCE_H
#define GRAPHC_LIB_CODEGEN_MODELSOURCE_H

#include "lib/Codegen/LaunchTable.h"
#include "lib/Codegen/SharedObjectWriter.h"
#include "lib/Support/LaneHash.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace graphc::codegen {

/// The weights as the artifact lays them out: each weight's bytes at its
/// offset, zeros between. Imported weights are borrowed from their blobs,
/// not copied: a large model's weights exist once in the compiler's memory,
/// and are read once to hash and once to write.
class WeightsImage {
public:
  uint64_t size() const { return end; }
  bool empty() const { return end == 0; }

  /// Places `bytes`, which must outlive the image, at `offset` >= size().
  void place(uint64_t offset, llvm::ArrayRef<char> bytes) {
    pieces.push_back({offset, bytes});
    end = offset + bytes.size();
  }
  void placeOwned(uint64_t offset, std::vector<char> bytes) {
    // A moved vector keeps its buffer: the piece stays valid.
    owned.push_back(std::move(bytes));
    place(offset, owned.back());
  }

  /// Calls `visit(llvm::ArrayRef<char>)` on consecutive ranges that together
  /// are the image's bytes, in order.
  template <typename Visit> void forEachRange(Visit visit) const {
    static const char zeros[4096] = {};
    uint64_t at = 0;
    for (const Piece &piece : pieces) {
      for (; at < piece.offset;
           at += std::min<uint64_t>(sizeof(zeros), piece.offset - at))
        visit(llvm::ArrayRef<char>(
            zeros, std::min<uint64_t>(sizeof(zeros), piece.offset - at)));
      visit(piece.bytes);
      at += piece.bytes.size();
    }
  }

  void hash(LaneHasher &hasher) const {
    forEachRange([&](llvm::ArrayRef<char> range) {
      hasher.update(range.data(), range.size());
    });
  }

private:
  struct Piece {
    uint64_t offset;
    llvm::ArrayRef<char> bytes;
  };
  std::vector<Piece> pieces;
  std::vector<std::vector<char>> owned;
  uint64_t end = 0;
};

/// What generateModelSource makes of an exec module. The weights may
/// borrow the module's blobs: the module must outlive it.
struct ModelSource {
  /// model.cpp: the descriptor's tables and, for cpu, the kernels.
  std::string cpp;
  WeightsImage weights;
};

/// The symbol model.cpp declares device image `index` at, and the file
/// blobs.s includes it from.
std::string deviceImageSymbol(size_t index);
std::string deviceImageFile(size_t index);

/// The model's C++ and weights for `options` (target, precision of library
/// GEMMs, cpu loops, the number of device images, a weights side file);
/// on cuda, the launches and units are CUDA codegen's `launches` (empty on
/// cpu). Deterministic: the same module, options and launches give the
/// same bytes.
llvm::Expected<ModelSource>
generateModelSource(mlir::ModuleOp module, const SharedObjectOptions &options,
                    const LaunchTable &launches);

} // namespace graphc::codegen

#endif // GRAPHC_LIB_CODEGEN_MODELSOURCE_H
