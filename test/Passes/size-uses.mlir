// RUN: graphc-opt %s --split-input-file \
// RUN:   --graphc-specialize-shape-buckets="buckets=n=2,4" \
// RUN:   --graphc-fold-shape-computations --graphc-analyze-pad-safety | FileCheck %s

// x.sum(1) / x.shape[1]: per bucket the size folds to a constant that looks
// like a weight, so the use is found before bucketing, and padding along n
// (which the sum alone would allow) is refused where the size becomes a float.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "size_cast", outputs = [-1], reason = "computes with the size of a dynamic dim, which padding changes", safe = false, splittable = false}}
// CHECK-SAME: graph.size_use = {node = "size_cast"
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3xf32> {
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %sum = graph.reduce_sum %x, %axes {keepdims = 0 : i64} : (tensor<3x?xf32>, tensor<1xi64>) -> tensor<3xf32> loc("sum")
  %shape = graph.shape %x {start = 1 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("shape")
  %size = graph.cast %shape {to = f32} : (tensor<1xi64>) -> tensor<1xf32> loc("size_cast")
  %mean = graph.div %sum, %size : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32> loc("mean_div")
  return %mean : tensor<3xf32>
}

// -----

// The size only shapes a reshape: no use as a number, padding along n stays
// exact.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "", outputs = [1], reason = "", safe = true, splittable = true}}
// CHECK-NOT: graph.size_use
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3x?x1xf32> {
  %shape = graph.shape %x : (tensor<3x?xf32>) -> tensor<2xi64> loc("shape")
  %one = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %target = graph.concat %shape, %one {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64> loc("target")
  %y = graph.reshape %x, %target : (tensor<3x?xf32>, tensor<3xi64>) -> tensor<3x?x1xf32> loc("reshape")
  %r = graph.relu %y : (tensor<3x?x1xf32>) -> tensor<3x?x1xf32> loc("relu")
  return %r : tensor<3x?x1xf32>
}

// -----

// A static dim picked out of a shape (an attention scale from x.shape[0]) is
// a constant, not the dynamic size: padding along n stays exact.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "", outputs = [1], reason = "", safe = true, splittable = true}}
// CHECK-NOT: graph.size_use
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3x?xf32> {
  %shape = graph.shape %x : (tensor<3x?xf32>) -> tensor<2xi64> loc("shape")
  %start = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %rows = graph.slice %shape, %start, %end {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64> loc("rows")
  %scale = graph.cast %rows {to = f32} : (tensor<1xi64>) -> tensor<1xf32> loc("scale")
  %y = graph.div %x, %scale : (tensor<3x?xf32>, tensor<1xf32>) -> tensor<3x?xf32> loc("scaled")
  return %y : tensor<3x?xf32>
}

// -----

// The size of an intermediate (not followed before bucketing) folds into a
// constant that two buckets hold with other values: the division that reads
// it breaks padding along n.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "mean_div", outputs = [-1], reason = "reads a constant that changes with the size of 'n' (the size computed with), which padding changes", safe = false, splittable = false}}
// CHECK-NOT: graph.size_use
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3xf32> {
  %axes = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %sum = graph.reduce_sum %x, %axes {keepdims = 0 : i64} : (tensor<3x?xf32>, tensor<1xi64>) -> tensor<3xf32> loc("sum")
  %r = graph.relu %x : (tensor<3x?xf32>) -> tensor<3x?xf32> loc("relu")
  %shape = graph.shape %r {start = 1 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("shape")
  %size = graph.cast %shape {to = f32} : (tensor<1xi64>) -> tensor<1xf32> loc("size_cast")
  %mean = graph.div %sum, %size : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32> loc("mean_div")
  return %mean : tensor<3xf32>
}
