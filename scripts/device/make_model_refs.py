"""Writes the model tests of test/e2e for the GPU device bundle: each model's
.onnx (from test/models), and per shape bucket its seeded random inputs and
onnxruntime's (CPU) outputs as .npy files, listed in manifest.json. Runs where
the bundle is made, with onnx and onnxruntime of the project's venv; the GPU
machine then needs neither the generators nor onnxruntime.

    python scripts/device/make_model_refs.py OUTDIR
"""
import json
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))

import run_model_tests as e2e  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    import onnxruntime as ort
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    manifest = {"rtol": e2e.RTOL, "atol": e2e.ATOL, "models": []}
    for name, spec in e2e.MODELS.items():
        onnx_path = e2e.generate(name, out_dir)
        session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
        output_names = [o.name for o in session.get_outputs()]
        for dims in spec["buckets"]:
            tag = f"{name}_{'_'.join(f'{k}{v}' for k, v in dims.items())}"
            feeds = e2e.model_feeds(name, onnx_path, dims)
            outputs = session.run(None, feeds)
            entry = {"name": name, "tag": tag, "onnx": os.path.basename(onnx_path),
                     "dims": dims, "inputs": {}, "outputs": []}
            for input_name, array in feeds.items():
                path = f"{tag}.in.{len(entry['inputs'])}.npy"
                np.save(os.path.join(out_dir, path), array)
                entry["inputs"][input_name] = path
            for i, (output_name, array) in enumerate(zip(output_names, outputs)):
                path = f"{tag}.ref.{i}.npy"
                np.save(os.path.join(out_dir, path), array)
                entry["outputs"].append({"name": output_name, "file": path})
            manifest["models"].append(entry)
            print(f"  {tag}: {len(feeds)} inputs, {len(outputs)} reference outputs")
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
