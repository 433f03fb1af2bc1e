// RUN: graphc-opt %s --split-input-file --verify-diagnostics

func.func @bad_hash(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{hash must be 16 hex digits}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "xyz", schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @arg_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has 1 inputs but its body 2 arguments}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    kernel.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @arg_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{input type 'tensor<4xf32>' does not match body argument type 'tensor<4xf16>'}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf16>):
    kernel.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yields 'tensor<2x2xf32>' but returns 'tensor<4xf32>'}}
  %0 = kernel.fusion "reshape_0" layout(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %s = graph.constant {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
    %r = graph.reshape %x, %s : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
    kernel.yield %r : tensor<2x2xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @library_pointwise(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{computes a pointwise fusion with cublaslt, which computes only matmul fusions}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", library = #kernel.library<cublaslt>, schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @cudnn_matmul(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{computes a matmul fusion with cudnn, which computes only conv and attention fusions}}
  %0 = kernel.fusion "relu_0" matmul(%a) {hash = "0123456789abcdef", library = #kernel.library<cudnn>, schedule = #kernel.schedule<>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_0(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{block_size 100 is not a multiple of 32 in [32, 1024]}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<block_size = 100>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_1(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{elements_per_thread 3 is not a power of two in [1, 64]}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<block_size = 256, elements_per_thread = 3>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_2(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{tile 12 is not 8, 16 or 32}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<tile = 12>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_3(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{rows_per_block 2 is neither 1 nor a power of two in [2, 32] with block_size 32 times it}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<block_size = 128, rows_per_block = 2>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_4(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{rows_per_block 4 is neither 1 nor a power of two in [2, 32] with block_size 32 times it}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<rows_per_block = 4>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_5(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{algo_rank 32 is not in [0, 32)}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<algo_rank = 32>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_6(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{split_k 1 is neither 0 nor in [2, 64]}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<split_k = 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_7(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{workspace_bytes -1 is negative}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<workspace_bytes = -1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_8(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{invalid where a kernel's schedule comes from specification: fast}}
  // expected-error @+1 {{failed to parse Kernel_ScheduleAttr parameter 'source'}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = #kernel.schedule<source = fast>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
