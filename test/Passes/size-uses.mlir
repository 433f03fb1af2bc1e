// RUN: graphc-opt %s --split-input-file \
// RUN:   --graphc-specialize-shape-buckets="buckets=n=2,4" \
// RUN:   --graphc-fold-shape-computations --graphc-analyze-pad-safety | FileCheck %s

// x.sum(1) / x.shape[1]: per bucket the size folds to a constant that looks
// like a weight, so the use is found before bucketing, and padding along n
// (which the sum alone would allow) is refused where the size becomes a float.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "size_cast", outputs = [-1], reason = "computes with the size of a dynamic dim, which padding changes", safe = false, splittable = false}}
// CHECK-SAME: graph.size_use = {n = {node = "size_cast"
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

// -----

// x + Range(n - 1, -1, -1): the range's start is the size, so the bucket's
// positions are not the unpadded run's: padding along n is refused at the
// range. b, which no size reaches, stays pad-safe.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {b = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, n = {inputs = [1], node = "reversed", outputs = [-1], reason = "a range whose start or step is computed from the size of a dynamic dim, which padding changes", safe = false, splittable = false}}
// CHECK-SAME: graph.size_use = {n = {node = "reversed"
func.func @main(%x: tensor<?x?xf32> {graph.name = "x", graph.dims = ["b", "n"]}) -> tensor<?x?xf32> {
  %shape = graph.shape %x : (tensor<?x?xf32>) -> tensor<2xi64> loc("shape")
  %i1 = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %m1 = graph.constant {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %n = graph.gather %shape, %i1 : (tensor<2xi64>, tensor<i64>) -> tensor<i64> loc("n")
  %last = graph.sub %n, %i1 : (tensor<i64>, tensor<i64>) -> tensor<i64> loc("last")
  %r = graph.range %last, %m1, %m1 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("reversed")
  %f = graph.cast %r {to = f32} : (tensor<?xi64>) -> tensor<?xf32> loc("cast")
  %y = graph.add %x, %f : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32> loc("add")
  return %y : tensor<?x?xf32>
}

// -----

// x + table[-n:]: the slice starts n from the end.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "tail", outputs = [-1], reason = "a slice whose start or step is computed from the size of a dynamic dim, which padding changes", safe = false, splittable = false}}
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3x?xf32> {
  %shape = graph.shape %x {start = 1 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("shape")
  %table = graph.constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>} : () -> tensor<8xf32>
  %start = graph.neg %shape : (tensor<1xi64>) -> tensor<1xi64> loc("minus_n")
  %end = graph.constant {value = dense<9223372036854775807> : tensor<1xi64>} : () -> tensor<1xi64>
  %tail = graph.slice %table, %start, %end {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32> loc("tail")
  %y = graph.add %x, %tail : (tensor<3x?xf32>, tensor<?xf32>) -> tensor<3x?xf32> loc("add")
  return %y : tensor<3x?xf32>
}

// -----

// x + Range(0, n)[::-1]: a reversing slice moves the positions with the size.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "flipped", outputs = [-1], reason = "reads a tensor shaped by the size of a dynamic dim other than position by position (padding moves its values)", safe = false, splittable = false}}
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3x?xf32> {
  %shape = graph.shape %x {start = 1 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("shape")
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = graph.squeeze %shape, %axes : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64> loc("n")
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = graph.range %zero, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("positions")
  %start = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = graph.constant {value = dense<-9223372036854775808> : tensor<1xi64>} : () -> tensor<1xi64>
  %flipped = graph.slice %r, %start, %end, %axes, %start {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi64> loc("flipped")
  %f = graph.cast %flipped {to = f32} : (tensor<?xi64>) -> tensor<?xf32> loc("cast")
  %y = graph.add %x, %f : (tensor<3x?xf32>, tensor<?xf32>) -> tensor<3x?xf32> loc("add")
  return %y : tensor<3x?xf32>
}

// -----

// x + Range(0, n) + table[:n] + table[Range(0, n)]: each holds the unpadded
// run's values in its leading positions, so padding along n stays exact.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "", outputs = [1], reason = "", safe = true, splittable = true}}
// CHECK-NOT: graph.size_use
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3x?xf32> {
  %shape = graph.shape %x {start = 1 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("shape")
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = graph.squeeze %shape, %axes : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64> loc("n")
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = graph.range %zero, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("positions")
  %f = graph.cast %r {to = f32} : (tensor<?xi64>) -> tensor<?xf32> loc("cast")
  %table = graph.constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>} : () -> tensor<8xf32>
  %head = graph.slice %table, %axes, %shape {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32> loc("head")
  %looked = graph.gather %table, %r : (tensor<8xf32>, tensor<?xi64>) -> tensor<?xf32> loc("looked_up")
  %y0 = graph.add %x, %f : (tensor<3x?xf32>, tensor<?xf32>) -> tensor<3x?xf32> loc("add")
  %y1 = graph.add %y0, %head : (tensor<3x?xf32>, tensor<?xf32>) -> tensor<3x?xf32> loc("add_head")
  %y2 = graph.add %y1, %looked : (tensor<3x?xf32>, tensor<?xf32>) -> tensor<3x?xf32> loc("add_looked_up")
  return %y2 : tensor<3x?xf32>
}
