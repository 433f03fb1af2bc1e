// RUN: graphc-opt %s --split-input-file --verify-diagnostics

func.func @bad_hash(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{hash must be 16 hex digits}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "xyz", schedule = {}} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @arg_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has 1 inputs but its body 2 arguments}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = {}} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    kernel.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @arg_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{input type 'tensor<4xf32>' does not match body argument type 'tensor<4xf16>'}}
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", schedule = {}} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf16>):
    kernel.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yields 'tensor<2x2xf32>' but returns 'tensor<4xf32>'}}
  %0 = kernel.fusion "reshape_0" layout(%a) {hash = "0123456789abcdef", schedule = {}} : (tensor<4xf32>) -> tensor<4xf32> {
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
  %0 = kernel.fusion "relu_0" pointwise(%a) {hash = "0123456789abcdef", library = #kernel.library<cublaslt>, schedule = {}} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @cudnn_matmul(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{computes a matmul fusion with cudnn, which computes only conv and attention fusions}}
  %0 = kernel.fusion "relu_0" matmul(%a) {hash = "0123456789abcdef", library = #kernel.library<cudnn>, schedule = {}} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
