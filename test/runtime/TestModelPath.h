//===- TestModelPath.h - where the runtime tests' models are ----*- C++ -*-===//
#ifndef GRAPHC_TEST_RUNTIME_TESTMODELPATH_H
#define GRAPHC_TEST_RUNTIME_TESTMODELPATH_H

#include <cstdlib>
#include <string>

/// The test model `name`: in GRAPHC_TEST_MODEL_DIR when set (a relocated
/// copy, as in the device bundle), else in the build tree's folder.
inline std::string modelPath(const std::string &name) {
  const char *dir = std::getenv("GRAPHC_TEST_MODEL_DIR");
  return std::string(dir && *dir ? dir : GRAPHC_TEST_MODEL_DIR) + "/" + name +
         ".so";
}

#endif // GRAPHC_TEST_RUNTIME_TESTMODELPATH_H
