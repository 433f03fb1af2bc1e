//===- LibraryTiming.h - timing a library kernel's algorithms ---*- C++ -*-===//
//
// cuBLASLt's and cuDNN's heuristics rank their algorithms (engine
// configurations) by a model of the GPU, not by running them; their first
// choice is often not the fastest for small problems (BERT at batch 1 has
// M = 128 and leaves most SMs idle). A session can time the candidates
// itself: each is built exactly as the session builds its own (the same
// workspace and alignment, the rank and split-K of the candidate in a copy
// of the kernel's descriptor) and run between two CUDA events on the
// session's stream, on operands laid out in the session's own memory: its
// arena when the operands fit (nothing runs at creation or while a tool
// times), else a scratch block allocated and freed around the timing. The
// operands are zeroed once; what the candidates compute is thrown away.
//
// graphc tune times every candidate (graphc_session_time_library_kernel);
// GRAPHC_SESSION_TIME_LIBRARY_ALGORITHMS times the first few of every
// untuned kernel at creation and keeps the fastest
// (CudaSession::timeLibraryAlgorithms). The CudaSession members live in
// LibraryTiming.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_RUNTIME_SRC_LIBRARYTIMING_H
#define GRAPHC_RUNTIME_SRC_LIBRARYTIMING_H

namespace graphc::rt {

/// Whether GRAPHC_TIME_LIBRARY_ALGORITHMS is set and not "0": every
/// session of the process times its library kernels' algorithms.
bool timeLibraryAlgorithmsFromEnvironment();

} // namespace graphc::rt

#endif
