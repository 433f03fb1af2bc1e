"""graphc models in Triton Inference Server's Python backend.

`graphc triton MODEL.so --repository DIR` writes a model repository entry:
config.pbtxt, the artifact, this package (with the runtime library it was
built with) and a model.py that re-exports TritonPythonModel from here.

Each model instance is one Triton stub process holding one graphc session.
Tensors pass through DLPack both ways: Triton's input tensors go to the
session without a copy on the cpu (a cuda session copies host inputs to the
device once, as for any host array), and the session's output tensors go to
Triton without a copy.

With dynamic batching (max_batch_size > 0, which graphc triton writes only
when every input and output carries a padded, splittable batch dim on axis
0), the requests Triton hands over at once run as one batch
(Session.run_batch): the runtime gathers their inputs along axis 0 into its
staging buffers, pads the batch up to the next batch bucket and writes each
request's rows into outputs of its own.
"""
import json
import os

import numpy as np

from ._errors import GraphcError, InvalidArgumentError
from ._model import load

# The config.pbtxt parameter naming the artifact in the version directory.
ARTIFACT_PARAMETER = "graphc_artifact"


def _parameter(config, key):
    value = config.get("parameters", {}).get(key, {}).get("string_value")
    if not value:
        raise GraphcError("invalid_argument",
                          f"config.pbtxt of model '{config.get('name')}' has "
                          f"no '{key}' parameter naming the graphc artifact")
    return value


class TritonPythonModel:
    """The Python backend's model class (one object per model instance)."""

    def initialize(self, args):
        # Imported here: the module exists only inside Triton's stub.
        import triton_python_backend_utils as pb_utils

        self._pb = pb_utils
        config = json.loads(args["model_config"])
        artifact = _parameter(config, ARTIFACT_PARAMETER)
        if os.path.basename(artifact) != artifact:
            raise GraphcError("invalid_argument",
                              f"parameter {ARTIFACT_PARAMETER} '{artifact}' "
                              "must name a file in the version directory")
        path = os.path.join(args["model_repository"], args["model_version"],
                            artifact)
        if args["model_instance_kind"] == "GPU":
            device = f"cuda:{int(args['model_instance_device_id'])}"
        else:
            device = "cpu"
        self._model = load(path, device=device)
        self._session = self._model.session()
        self._input_names = [info.name for info in self._model.inputs]
        self._output_names = [info.name for info in self._model.outputs]
        self._batching = int(config.get("max_batch_size", 0)) > 0

    def execute(self, requests):
        if self._batching and len(requests) > 1:
            return self._execute_batch(requests)
        return [self._execute_one(request) for request in requests]

    def finalize(self):
        self._session.close()
        self._model.close()

    def _input(self, request, name):
        tensor = self._pb.get_input_tensor_by_name(request, name)
        if tensor is None:
            raise InvalidArgumentError(f"input '{name}' is missing")
        return tensor

    def _respond(self, outputs):
        pb = self._pb
        # Triton takes dense tensors only: an output with data-dependent
        # dims, the corner of its bounds' buffer, goes as a dense copy of
        # the corner (a host array).
        return pb.InferenceResponse(output_tensors=[
            pb.Tensor.from_dlpack(name, tensor) if tensor.contiguous else
            pb.Tensor(name, np.ascontiguousarray(tensor.numpy()))
            for name, tensor in zip(self._output_names, outputs)])

    def _error(self, error):
        pb = self._pb
        message = f"graphc: {error}"
        # TritonError takes a code in Python backends from 23.10 on.
        code = getattr(pb.TritonError, "INVALID_ARG", None)
        if isinstance(error, InvalidArgumentError) and code is not None:
            return pb.InferenceResponse(error=pb.TritonError(message, code))
        return pb.InferenceResponse(error=pb.TritonError(message))

    def _execute_one(self, request):
        try:
            inputs = {name: self._input(request, name)
                      for name in self._input_names}
            outputs = self._session.run(inputs)
        except GraphcError as error:
            return self._error(error)
        return self._respond(outputs)

    def _execute_batch(self, requests):
        # Triton batches only requests whose non-batch dims agree, and gives
        # the Python backend host tensors unless FORCE_CPU_ONLY_INPUT_TENSORS
        # is "no" (graphc triton leaves it at "yes").
        try:
            outputs = self._session.run_batch(
                [{name: self._input(r, name).as_numpy()
                  for name in self._input_names} for r in requests])
        except GraphcError as error:
            return [self._error(error) for _ in requests]
        return [self._respond(request_outputs) for request_outputs in outputs]
