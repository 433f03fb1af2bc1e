"""bench/graphc_cuda.py (how the GPU benchmarks load and run graphc models)
on an artifact the emulated device model tests compiled: its outputs'
shapes and its library kernels, as the benchmarks read them, without torch.
A layout that drifts from the C API's shows here rather than as a crash on
a rare GPU machine.

    python check_graphc_cuda.py ARTIFACT.so OUTPUT_DIMS KERNEL_COUNT
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench"))
from graphc_cuda import GraphcCudaModel  # noqa: E402


def main():
    path, dims, kernels = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
    # Many loads: a structure smaller than the C one corrupts the heap,
    # which shows only after a while.
    for _ in range(50):
        model = GraphcCudaModel(path)
        try:
            shapes = model.output_shapes()
            found = model.library_kernels()
        finally:
            model.close()
    assert [s for s, _ in shapes] == dims, shapes
    assert len(found) == kernels, found
    for k in found:
        assert k["library"] in ("cublaslt", "cudnn"), k
        assert (k["why_not_fused"] is None) == (k["fused"] is not False), k
    print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
