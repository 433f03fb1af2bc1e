//===- GraphDialect.h - graph dialect ---------------------------*- C++ -*-===//
#ifndef GRAPHC_DIALECTS_GRAPH_GRAPHDIALECT_H
#define GRAPHC_DIALECTS_GRAPH_GRAPHDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Graph/GraphDialect.h.inc"

#endif
