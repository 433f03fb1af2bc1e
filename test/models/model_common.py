"""Helpers shared by the model generators: seeded weights, saving with
optional external data, and the command line every generator offers."""
import argparse
import os

import numpy as np
import onnx
from onnx import helper, numpy_helper


class Weights:
    """Collects initializers with deterministic random values."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.initializers = []

    def add(self, name, shape, scale=0.1, dtype=np.float32):
        value = (self.rng.standard_normal(shape) * scale).astype(dtype)
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def const(self, name, value):
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name


def make_model(nodes, name, inputs, outputs, initializers, opset):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(
        graph,
        producer_name="graphc-tests",
        producer_version="1",
        opset_imports=[helper.make_opsetid("", opset)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def save(model, path, external_data=False):
    """Saves `model`; with external_data every tensor of 1 KiB or more goes
    to `<basename>.data` beside the model."""
    if external_data:
        location = os.path.basename(path) + ".data"
        data_path = os.path.join(os.path.dirname(os.path.abspath(path)), location)
        if os.path.exists(data_path):
            os.remove(data_path)
        onnx.save_model(
            model,
            path,
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=location,
            size_threshold=1024,
        )
    else:
        onnx.save_model(model, path)


def main(builder, description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("output", help="path of the .onnx file to write")
    parser.add_argument("--external-data", action="store_true",
                        help="store weights in OUTPUT.data beside the model")
    args = parser.parse_args()
    save(builder(), args.output, args.external_data)
