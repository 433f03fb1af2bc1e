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
// A run split along n would add the first part's positions to every part:
// n does not split.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "add", outputs = [1], reason = "reads a tensor shaped by the size of a dynamic dim that holds other values at each position along it (a run split into parts would read the first part's in every part)", safe = true, splittable = false}}
// CHECK-SAME: graph.size_use = {n = {node = "add", reason = "{{.*}}", split_only}}
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

// -----

// transformers' packed-sequence check (GPT-2 exported with torch.export):
// position ids [b, n] with one position before them concatenated along n,
// running sums of their steps, read by GatherND at (row, position) pairs
// built from Range(0, b) and Range(0, n). Each axis keeps its leading
// positions (the concatenated part has one position; the indices are at
// least 0), so neither dim is a use; the rows of what is read are equal,
// so b splits too (the running sums differ along n, which does not).
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {b = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, n = {inputs = [1], node = "add", outputs = [1], reason = "reads a tensor shaped by the size of a dynamic dim that holds other values at each position along it (a run split into parts would read the first part's in every part)", safe = true, splittable = false}}
// CHECK-SAME: graph.size_use = {n = {node = "add", reason = "{{.*}}", split_only}}
func.func @main(%x: tensor<?x?xf32> {graph.name = "x", graph.dims = ["b", "n"]}) -> tensor<?x?xf32> {
  %b1 = graph.shape %x {end = 1 : i64} : (tensor<?x?xf32>) -> tensor<1xi64> loc("b1")
  %n1 = graph.shape %x {start = 1 : i64} : (tensor<?x?xf32>) -> tensor<1xi64> loc("n1")
  %axis0 = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = graph.squeeze %b1, %axis0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64> loc("b")
  %n = graph.squeeze %n1, %axis0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64> loc("n")
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %one1 = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %last1 = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %column = graph.constant {value = dense<[-1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %pos = graph.range %zero, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("positions")
  %row = graph.unsqueeze %pos, %axis0 : (tensor<?xi64>, tensor<1xi64>) -> tensor<1x?xi64> loc("pos_row")
  %idsShape = graph.concat %b1, %one1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64> loc("ids_shape")
  %ids = graph.expand %row, %idsShape : (tensor<1x?xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("ids")
  %first = graph.slice %ids, %axis0, %one1, %one1, %one1 {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x1xi64> loc("first")
  %before = graph.sub %first, %one : (tensor<?x1xi64>, tensor<i64>) -> tensor<?x1xi64> loc("before")
  %cat = graph.concat %before, %ids {axis = -1 : i64} : (tensor<?x1xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> loc("cat")
  %n1plus = graph.add %n1, %one1 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64> loc("n_plus_1")
  %lo = graph.slice %cat, %axis0, %n1, %last1, %one1 {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xi64> loc("lo")
  %hi = graph.slice %cat, %one1, %n1plus, %last1, %one1 {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xi64> loc("hi")
  %steps = graph.sub %hi, %lo : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> loc("steps")
  %running = graph.cum_sum %steps, %one : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64> loc("running")
  %rows = graph.range %zero, %b, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("rows")
  %rowsCol = graph.reshape %rows, %column : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x1xi64> loc("rows_col")
  %grid = graph.max %rowsCol, %pos : (tensor<?x1xi64>, tensor<?xi64>) -> tensor<?x?xi64> loc("grid")
  %gridShape = graph.shape %grid : (tensor<?x?xi64>) -> tensor<2xi64> loc("grid_shape")
  %ri = graph.expand %rowsCol, %gridShape : (tensor<?x1xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("row_index")
  %ri1 = graph.unsqueeze %ri, %last1 : (tensor<?x?xi64>, tensor<1xi64>) -> tensor<?x?x1xi64> loc("row_index1")
  %ci = graph.expand %pos, %gridShape : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("col_index")
  %ci1 = graph.unsqueeze %ci, %last1 : (tensor<?x?xi64>, tensor<1xi64>) -> tensor<?x?x1xi64> loc("col_index1")
  %pairs = graph.concat %ri1, %ci1 {axis = -1 : i64} : (tensor<?x?x1xi64>, tensor<?x?x1xi64>) -> tensor<?x?x2xi64> loc("pairs")
  %packed = graph.gather_nd %running, %pairs : (tensor<?x?xi64>, tensor<?x?x2xi64>) -> tensor<?x?xi64> loc("packed")
  %f = graph.cast %packed {to = f32} : (tensor<?x?xi64>) -> tensor<?x?xf32> loc("cast")
  %y = graph.add %x, %f : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> loc("add")
  return %y : tensor<?x?xf32>
}

// -----

// The same pairs one position earlier: -1 counts from the end of n, which
// padding moves, so n is exact-size only at the GatherND; the rows are
// read at Range(0, b), so b still pads and splits.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {b = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, n = {inputs = [1], node = "packed", outputs = [-1], reason = "reads a tensor shaped by the size of a dynamic dim other than position by position (padding moves its values)", safe = false, splittable = false}}
// CHECK-SAME: graph.size_use = {n = {node = "packed"
func.func @main(%x: tensor<?x?xf32> {graph.name = "x", graph.dims = ["b", "n"]}) -> tensor<?x?xf32> {
  %shape = graph.shape %x : (tensor<?x?xf32>) -> tensor<2xi64> loc("shape")
  %i0 = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %last1 = graph.constant {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %column = graph.constant {value = dense<[-1, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %b = graph.gather %shape, %i0 : (tensor<2xi64>, tensor<i64>) -> tensor<i64> loc("b")
  %n = graph.gather %shape, %i1 : (tensor<2xi64>, tensor<i64>) -> tensor<i64> loc("n")
  %pos = graph.range %i0, %n, %i1 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("positions")
  %earlier = graph.sub %pos, %i1 : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64> loc("earlier")
  %ids = graph.expand %pos, %shape : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("ids")
  %rows = graph.range %i0, %b, %i1 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("rows")
  %rowsCol = graph.reshape %rows, %column : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x1xi64> loc("rows_col")
  %ri = graph.expand %rowsCol, %shape : (tensor<?x1xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("row_index")
  %ri1 = graph.unsqueeze %ri, %last1 : (tensor<?x?xi64>, tensor<1xi64>) -> tensor<?x?x1xi64> loc("row_index1")
  %ci = graph.expand %earlier, %shape : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("col_index")
  %ci1 = graph.unsqueeze %ci, %last1 : (tensor<?x?xi64>, tensor<1xi64>) -> tensor<?x?x1xi64> loc("col_index1")
  %pairs = graph.concat %ri1, %ci1 {axis = -1 : i64} : (tensor<?x?x1xi64>, tensor<?x?x1xi64>) -> tensor<?x?x2xi64> loc("pairs")
  %packed = graph.gather_nd %ids, %pairs : (tensor<?x?xi64>, tensor<?x?x2xi64>) -> tensor<?x?xi64> loc("packed")
  %f = graph.cast %packed {to = f32} : (tensor<?x?xi64>) -> tensor<?x?xf32> loc("cast")
  %y = graph.add %x, %f : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> loc("add")
  return %y : tensor<?x?xf32>
}

// -----

// Range(0, n) ++ Range(0, n): the second copy starts where the first ends,
// which padding moves along n. b, which does not shape that axis, pads.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {b = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, n = {inputs = [1], node = "twice", outputs = [-1], reason = "reads a tensor shaped by the size of a dynamic dim other than position by position (padding moves its values)", safe = false, splittable = false}}
// CHECK-SAME: graph.size_use = {n = {node = "twice"
func.func @main(%x: tensor<?x?xf32> {graph.name = "x", graph.dims = ["b", "n"]}) -> tensor<?x?xf32> {
  %shape = graph.shape %x : (tensor<?x?xf32>) -> tensor<2xi64> loc("shape")
  %i0 = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %i1 = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %one1 = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %two1 = graph.constant {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = graph.gather %shape, %i1 : (tensor<2xi64>, tensor<i64>) -> tensor<i64> loc("n")
  %pos = graph.range %i0, %n, %i1 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("positions")
  %ids = graph.expand %pos, %shape : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("ids")
  %twice = graph.concat %ids, %ids {axis = 1 : i64} : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64> loc("twice")
  %n1 = graph.slice %shape, %one1, %two1 {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64> loc("n1")
  %end = graph.add %n1, %one1 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64> loc("end")
  %shifted = graph.slice %twice, %one1, %end, %one1 {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xi64> loc("shifted")
  %f = graph.cast %shifted {to = f32} : (tensor<?x?xi64>) -> tensor<?x?xf32> loc("cast")
  %y = graph.add %x, %f : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> loc("add")
  return %y : tensor<?x?xf32>
}

// -----

// x @ bias[k - q:k, :k] with k and q both n (older TorchScript exports of
// GPT-2): k - q folds to 0, a slice from the front, so n pads (and does
// not split: the product mixes positions along it).
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "mixed", outputs = [1], reason = "a contraction over the padded axis", safe = true, splittable = false}}
// CHECK-SAME: graph.size_use = {n = {node = "mixed", reason = "{{.*}}", split_only}}
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> tensor<3x?xf32> {
  %q = graph.shape %x {start = 1 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("q")
  %k = graph.shape %x {start = 1 : i64, end = 2 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("k")
  %offset = graph.sub %k, %q : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64> loc("offset")
  %zero1 = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %one1 = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %bias = graph.constant {value = dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
  %rows = graph.slice %bias, %offset, %k, %zero1 {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x8xf32> loc("bias_rows")
  %kq = graph.slice %rows, %zero1, %k, %one1 {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<?x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32> loc("bias_kq")
  %mixed = graph.mat_mul %x, %kq : (tensor<3x?xf32>, tensor<?x?xf32>) -> tensor<3x?xf32> loc("mixed")
  %y = graph.add %x, %mixed : (tensor<3x?xf32>, tensor<3x?xf32>) -> tensor<3x?xf32> loc("add")
  return %y : tensor<3x?xf32>
}

// -----

// x + Range(0, b)[:, None]: padded, the leading rows hold the unpadded
// run's values; split into parts, each would count its rows from 0. b pads
// but does not split.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {b = {inputs = [0], node = "add", outputs = [0], reason = "reads a tensor shaped by the size of a dynamic dim that holds other values at each position along it (a run split into parts would read the first part's in every part)", safe = true, splittable = false}, n = {inputs = [1], node = "", outputs = [1], reason = "", safe = true, splittable = true}}
// CHECK-SAME: graph.size_use = {b = {node = "add", reason = "{{.*}}", split_only}}
func.func @main(%x: tensor<?x?xf32> {graph.name = "x", graph.dims = ["b", "n"]}) -> tensor<?x?xf32> {
  %shape = graph.shape %x {end = 1 : i64} : (tensor<?x?xf32>) -> tensor<1xi64> loc("shape")
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %last = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %b = graph.squeeze %shape, %axes : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64> loc("b")
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %rows = graph.range %zero, %b, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("rows")
  %col = graph.unsqueeze %rows, %last : (tensor<?xi64>, tensor<1xi64>) -> tensor<?x1xi64> loc("rows_col")
  %f = graph.cast %col {to = f32} : (tensor<?x1xi64>) -> tensor<?x1xf32> loc("cast")
  %y = graph.add %x, %f : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32> loc("add")
  return %y : tensor<?x?xf32>
}

// -----

// BERT's token type ids as the TorchScript exporter writes them: a table
// sliced [:, :n] expanded to Where(shape == -1, 1, shape), which is the
// shape (a size is never negative): both dims pad.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {b = {inputs = [0], node = "", outputs = [0], reason = "", safe = true, splittable = true}, n = {inputs = [1], node = "", outputs = [1], reason = "", safe = true, splittable = true}}
// CHECK-NOT: graph.size_use
func.func @main(%x: tensor<?x?xf32> {graph.name = "x", graph.dims = ["b", "n"]}) -> tensor<?x?xf32> {
  %shape = graph.shape %x : (tensor<?x?xf32>) -> tensor<2xi64> loc("shape")
  %n1 = graph.shape %x {start = 1 : i64} : (tensor<?x?xf32>) -> tensor<1xi64> loc("n1")
  %table = graph.constant {value = dense<0> : tensor<1x8xi64>} : () -> tensor<1x8xi64>
  %zero1 = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %one1 = graph.constant {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %types = graph.slice %table, %zero1, %n1, %one1 {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<1x8xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x?xi64> loc("types")
  %minus = graph.constant {value = dense<-1> : tensor<2xi64>} : () -> tensor<2xi64>
  %ones = graph.constant {value = dense<1> : tensor<2xi64>} : () -> tensor<2xi64>
  %unknown = graph.equal %shape, %minus : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1> loc("unknown")
  %target = graph.where %unknown, %ones, %shape : (tensor<2xi1>, tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64> loc("target")
  %expanded = graph.expand %types, %target : (tensor<1x?xi64>, tensor<2xi64>) -> tensor<?x?xi64> loc("expanded")
  %weights = graph.constant {value = dense<[0.5, -1.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %looked = graph.gather %weights, %expanded : (tensor<2xf32>, tensor<?x?xi64>) -> tensor<?x?xf32> loc("looked_up")
  %y = graph.add %x, %looked : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> loc("add")
  return %y : tensor<?x?xf32>
}

// -----

// An output Range(0, n) holds the bucket's n positions; the runtime cuts
// back only outputs computed from the inputs: n is exact-size only.
// CHECK-LABEL: func @bucket_0
// CHECK-SAME: graph.pad_safety = {n = {inputs = [1], node = "func.return", outputs = [-1, -1], reason = "an output is shaped by the size of a dynamic dim without being computed from the inputs, so a padded run cannot cut it back", safe = false, splittable = false}}
func.func @main(%x: tensor<3x?xf32> {graph.name = "x", graph.dims = ["", "n"]}) -> (tensor<3x?xf32>, tensor<?xi64>) {
  %shape = graph.shape %x {start = 1 : i64} : (tensor<3x?xf32>) -> tensor<1xi64> loc("shape")
  %axes = graph.constant {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %n = graph.squeeze %shape, %axes : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64> loc("n")
  %zero = graph.constant {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = graph.constant {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = graph.range %zero, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64> loc("positions")
  %y = graph.relu %x : (tensor<3x?xf32>) -> tensor<3x?xf32> loc("relu")
  return %y, %r : tensor<3x?xf32>, tensor<?xi64>
}
