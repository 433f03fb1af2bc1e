"""Checks graphc inspect --json on test/runtime's gemm_model_cuda.so."""
import json
import sys

report = json.load(open(sys.argv[1]))
assert report["libraries"] == ["cublaslt"], report["libraries"]
steps = report["plans"][0]["steps"]
assert [s["kind"] for s in steps] == ["launch"] + ["library_call"] * 3, steps
assert [s["kernel"] for s in steps] == ["gemm_model_scale", "gemm_relu_bias",
                                        "gemm_relu_bias", "gemm_gelu_c"], steps
# A library call's cost is its kernel's (2 m n k batch flops).
assert steps[1]["flops"] == 240 and steps[3]["flops"] == 120, steps
totals = report["plans"][0]["totals"]
assert totals["launches"] == 4 and totals["library_calls"] == 3, totals
kernels = {k["name"]: k for k in report["kernels"]}
assert kernels["gemm_model_scale"]["library"] is None, kernels
assert kernels["gemm_model_scale"]["gemm"] is None, kernels
# A cuda model's generated kernel names its module unit; library kernels none.
assert kernels["gemm_model_scale"]["unit"] == 0, kernels
assert kernels["gemm_relu_bias"]["unit"] is None, kernels
relu = kernels["gemm_relu_bias"]
assert relu["library"] == "cublaslt", relu
assert relu["gemm"] == {
    "m": 3, "n": 5, "k": 4, "batch": 2, "trans_a": False, "trans_b": True,
    "lda": 4, "ldb": 4, "ldc": 0, "stride_a": 12, "stride_b": 0,
    "stride_c": 0, "alpha": 1.0, "beta": 0.0, "bias": True,
    "epilogue": "relu", "dtype": "float32", "compute_dtype": "float32",
    "algo_rank": 0, "split_k": 0, "tuned": False, "tf32": False}, relu
gelu = kernels["gemm_gelu_c"]["gemm"]
assert (gelu["alpha"], gelu["beta"], gelu["bias"], gelu["epilogue"]) == \
    (0.5, 1.0, False, "gelu_tanh"), gelu
print("ok")
