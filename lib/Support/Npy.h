//===- Npy.h - reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// The .npy format (versions 1.0, 2.0 and 3.0) for every graphc dtype, C
// order. Files are written little endian; big-endian files are byte-swapped
// on reading. The header must be the dict numpy writes, with each of its
// three keys once, so that graphc and numpy never read one file as two
// different arrays. bfloat16 has no NumPy dtype: it is written as the
// two-byte void type '<V2' (what ml_dtypes arrays save as) and '<V2' reads
// back as bfloat16.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_NPY_H
#define GRAPHC_LIB_SUPPORT_NPY_H

#include "lib/Support/HostTensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace graphc {

/// Parses the contents of a .npy file; `name` becomes the tensor's name and
/// prefixes error messages.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef contents,
                                    llvm::StringRef name);

/// Reads a .npy file; the tensor is named after the file's stem.
llvm::Expected<HostTensor> readNpyFile(llvm::StringRef path);

/// Writes `tensor` in .npy format 1.0 (2.0 if the header needs it).
llvm::Error writeNpy(llvm::raw_ostream &os, const HostTensor &tensor);

/// Writes `tensor` to the file at `path`, replacing it.
llvm::Error writeNpyFile(llvm::StringRef path, const HostTensor &tensor);

/// The .npy descr of an ONNX dtype ("<f4"), or "" when it has none.
llvm::StringRef npyDescrForDtype(int32_t dtype);

} // namespace graphc

#endif
