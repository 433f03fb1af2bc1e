//===- RoiAlign.h - the bound of RoiAlign's sampling grids ------*- C++ -*-===//
//
// Header only: the verifier, the host kernel and the CUDA emitter of
// graph.roi_align share it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_ROIALIGN_H
#define GRAPHC_LIB_SUPPORT_ROIALIGN_H

#include <cstdint>

namespace graphc {

/// The most samples a bin of graph.roi_align takes along an axis, so that a
/// bin's count of samples fits an int64_t: sampling_ratio may not exceed it,
/// and an adaptive count (ceil(roi size / output size), from the run's rois)
/// is clamped to it. Only boxes more than 2^31 pixels across per bin reach
/// it; onnxruntime cannot allocate their samples.
inline constexpr int64_t kRoiAlignMaxSamplesPerAxis = int64_t(1) << 31;

} // namespace graphc

#endif // GRAPHC_LIB_SUPPORT_ROIALIGN_H
