//===- Binding.cpp - validating a run's tensors and choosing plans --------===//
#include "runtime/src/Binding.h"

#include "runtime/src/Dtype.h"
#include "runtime/src/Model.h"
#include "runtime/src/Status.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>

using namespace graphc::rt;

namespace {
std::string quoted(const char *name) { return std::string("'") + name + "'"; }

std::string describeDevice(DLDevice device) {
  switch (device.device_type) {
  case kDLCPU:
    return "cpu";
  case kDLCUDA:
    return "cuda:" + std::to_string(device.device_id);
  case kDLCUDAHost:
    return "cuda pinned host memory";
  default:
    return "device type " + std::to_string(device.device_type);
  }
}

std::string describeTensor(const DLTensor &tensor) {
  int32_t dtype = dtypeFromDLPack(tensor.dtype);
  if (dtype == 0)
    return "dlpack dtype (code " + std::to_string(tensor.dtype.code) +
           ", bits " + std::to_string(tensor.dtype.bits) + ", lanes " +
           std::to_string(tensor.dtype.lanes) + ")";
  return formatTensorType(dtype, tensor.ndim, tensor.shape);
}

/// "x: float32[1,4], y: int64[2]" for the model's inputs at `dims`.
std::string describeInputShapes(const graphc_model_desc &desc,
                                const int64_t *const *dims) {
  std::string text;
  for (int32_t i = 0; i < desc.num_inputs; ++i) {
    const graphc_tensor_desc &input = desc.inputs[i];
    if (i)
      text += ", ";
    text += std::string(input.name) + ": " +
            formatTensorType(input.dtype, input.rank, dims[i]);
  }
  return text;
}

bool isRowMajor(const DLTensor &tensor) {
  if (!tensor.strides)
    return true;
  int64_t expected = 1;
  for (int32_t d = tensor.ndim - 1; d >= 0; --d) {
    // A dim of size 1 (or an empty tensor) is contiguous whatever its stride.
    if (tensor.shape[d] != 1 && tensor.strides[d] != expected)
      return tensor.shape[d] == 0;
    expected *= tensor.shape[d];
  }
  return true;
}

/// The bytes a validated tensor's data covers, [first, end).
std::pair<uintptr_t, uintptr_t> byteRange(const DLTensor &t) {
  auto begin = reinterpret_cast<uintptr_t>(t.data) + t.byte_offset;
  uint64_t bytes =
      graphc_dtype_bytes(dtypeFromDLPack(t.dtype),
                         static_cast<uint64_t>(elementCount(t.ndim, t.shape)));
  return std::make_pair(begin, begin + bytes);
}

std::string formatStrides(const DLTensor &tensor) {
  std::string text = "[";
  for (int32_t d = 0; d < tensor.ndim; ++d)
    text += (d ? "," : "") + std::to_string(tensor.strides[d]);
  return text + "]";
}

/// Checks what every tensor of a run needs whatever its role: a known dtype
/// and well-formed dims, placement, contiguity and data.
graphc_status checkTensor(const DLTensor &tensor, const std::string &what,
                          const graphc_tensor_desc &expected,
                          const int64_t *expectedDims,
                          DeviceRequirement device) {
  int32_t dtype = dtypeFromDLPack(tensor.dtype);
  if (dtype != expected.dtype) {
    std::string got = tensor.ndim < 0 || (tensor.ndim > 0 && !tensor.shape)
                          ? "a tensor without a shape"
                          : describeTensor(tensor);
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      what + ": expected " +
                          formatTensorType(expected.dtype, expected.rank,
                                           expectedDims, expected.dim_names) +
                          ", got " + got);
  }
  if (graphc_status status =
          checkDims(expected, expectedDims, tensor.ndim, tensor.shape, what))
    return status;
  DLDevice dev = tensor.device;
  if (device.target == GRAPHC_TARGET_CPU) {
    if (dev.device_type != kDLCPU && dev.device_type != kDLCUDAHost)
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        what +
                            ": expected a tensor in host memory (kDLCPU) "
                            "for this cpu model, got " +
                            describeDevice(dev));
  } else if (device.hostToo) {
    if ((dev.device_type != kDLCUDA || dev.device_id != device.ordinal) &&
        dev.device_type != kDLCPU && dev.device_type != kDLCUDAHost)
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        what + ": expected a tensor on cuda:" +
                            std::to_string(device.ordinal) +
                            " (the session's device) or in host memory, got " +
                            describeDevice(dev));
  } else if (dev.device_type != kDLCUDA || dev.device_id != device.ordinal) {
    return makeStatus(
        GRAPHC_INVALID_ARGUMENT,
        what + ": expected a tensor on cuda:" + std::to_string(device.ordinal) +
            " (the session's device), got " + describeDevice(dev));
  }
  if (!isRowMajor(tensor))
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      what +
                          ": expected a dense row-major tensor, got strides " +
                          formatStrides(tensor));
  if (!tensor.data && elementCount(tensor.ndim, tensor.shape) != 0)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, what + ": data is NULL");
  return nullptr;
}
} // namespace

graphc_status graphc::rt::checkDims(const graphc_tensor_desc &expected,
                                    const int64_t *expectedDims, int32_t rank,
                                    const int64_t *dims,
                                    const std::string &what) {
  bool ok = rank == expected.rank && (rank == 0 || dims);
  for (int32_t d = 0; ok && d < rank; ++d)
    ok = dims[d] >= 0 && (expectedDims[d] < 0 || dims[d] == expectedDims[d]);
  if (ok)
    return nullptr;
  // The dims as given, negative ones included.
  std::string got = "a tensor without a shape";
  if (rank >= 0 && (rank == 0 || dims)) {
    got = std::string(graphc_dtype_name(expected.dtype)) + "[";
    for (int32_t d = 0; d < rank; ++d)
      got += (d ? "," : "") + std::to_string(dims[d]);
    got += "]";
  }
  return makeStatus(GRAPHC_INVALID_ARGUMENT,
                    what + ": expected " +
                        formatTensorType(expected.dtype, expected.rank,
                                         expectedDims, expected.dim_names) +
                        ", got " + got);
}

graphc_status graphc::rt::orderInputs(const graphc_model &model,
                                      int32_t numInputs,
                                      const char *const *names,
                                      std::vector<int32_t> &modelIndex) {
  const graphc_model_desc &desc = *model.desc;
  if (numInputs != desc.num_inputs) {
    std::string list;
    for (int32_t i = 0; i < desc.num_inputs; ++i)
      list += (i ? ", " : "") + quoted(desc.inputs[i].name);
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "expected " + std::to_string(desc.num_inputs) +
                          " inputs (" + list + "), got " +
                          std::to_string(numInputs));
  }
  modelIndex.assign(numInputs, -1);
  if (!names) {
    for (int32_t i = 0; i < numInputs; ++i)
      modelIndex[i] = i;
    return nullptr;
  }
  std::vector<bool> seen(desc.num_inputs, false);
  for (int32_t i = 0; i < numInputs; ++i) {
    if (!names[i])
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        "input name " + std::to_string(i) + " is NULL");
    for (int32_t m = 0; m < desc.num_inputs; ++m) {
      if (std::string(desc.inputs[m].name) == names[i]) {
        modelIndex[i] = m;
        break;
      }
    }
    if (modelIndex[i] < 0) {
      std::string list;
      for (int32_t m = 0; m < desc.num_inputs; ++m)
        list += (m ? ", " : "") + quoted(desc.inputs[m].name);
      return makeStatus(GRAPHC_NOT_FOUND, "unknown input " + quoted(names[i]) +
                                              "; the model's inputs are " +
                                              list);
    }
    if (seen[modelIndex[i]])
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        "input " + quoted(names[i]) + " given twice");
    seen[modelIndex[i]] = true;
  }
  return nullptr;
}

namespace {
/// The bucketed dim that axis `d` of `tensor` carries, or -1.
int32_t bucketDimOf(const graphc_model_desc &desc,
                    const graphc_tensor_desc &tensor, int32_t d) {
  if (tensor.dims[d] >= 0 || !tensor.dim_names || !tensor.dim_names[d] ||
      !tensor.dim_names[d][0])
    return -1;
  for (int32_t k = 0; k < desc.num_bucket_dims; ++k)
    if (std::strcmp(desc.bucket_dims[k].name, tensor.dim_names[d]) == 0)
      return k;
  return -1;
}

/// The plan whose inputs have the model's static dims and `sizes` along
/// the bucketed dims, or -1.
int32_t findPlan(const graphc_model_desc &desc,
                 const std::vector<int64_t> &sizes) {
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    bool matches = true;
    for (int32_t i = 0; matches && i < desc.num_inputs; ++i) {
      const graphc_tensor_desc &input = desc.inputs[i];
      for (int32_t d = 0; matches && d < input.rank; ++d) {
        int32_t k = bucketDimOf(desc, input, d);
        int64_t expected = k >= 0 ? sizes[k] : input.dims[d];
        matches = expected < 0 || desc.plans[p].input_dims[i][d] == expected;
      }
    }
    if (matches)
      return p;
  }
  return -1;
}

/// "1, 2, 4, 8".
std::string describeSizes(const graphc_bucket_dim_desc &dim) {
  std::string text;
  for (int32_t s = 0; s < dim.num_sizes; ++s)
    text += (s ? ", " : "") + std::to_string(dim.sizes[s]);
  return text;
}

/// " (node 'Softmax_3': a softmax over the padded axis)".
std::string describeBreak(const graphc_bucket_dim_desc &dim) {
  std::string text = dim.node && dim.node[0]
                         ? "node " + quoted(dim.node) + ": "
                         : std::string();
  text += dim.reason && dim.reason[0] ? dim.reason : "not analysed";
  return " (" + text + ")";
}

/// How many axes of input `i` carry bucketed dim `k`.
int32_t axesCarrying(const graphc_model_desc &desc, int32_t i, int32_t k) {
  int32_t count = 0;
  for (int32_t d = 0; d < desc.inputs[i].rank; ++d)
    count += bucketDimOf(desc, desc.inputs[i], d) == k;
  return count;
}
} // namespace

graphc_status graphc::rt::resolveRun(const graphc_model &model,
                                     const int32_t *ranks,
                                     const int64_t *const *dims,
                                     RunShape &shape) {
  const graphc_model_desc &desc = *model.desc;
  shape = RunShape();
  for (int32_t i = 0; i < desc.num_inputs; ++i)
    if (graphc_status status =
            checkDims(desc.inputs[i], desc.inputs[i].dims, ranks[i], dims[i],
                      "input " + quoted(desc.inputs[i].name)))
      return status;
  // The outputs' dims follow from the first part. When every output has
  // zero elements there is nothing to compute: the run is empty.
  auto finish = [&] {
    const graphc_plan_desc &plan = desc.plans[shape.parts.front().plan];
    shape.empty = desc.num_outputs > 0;
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      std::vector<int64_t> outDims(plan.output_dims[o],
                                   plan.output_dims[o] + desc.outputs[o].rank);
      for (int32_t k = 0; shape.staged && k < desc.num_bucket_dims; ++k) {
        int32_t axis = desc.bucket_dims[k].output_axes[o];
        if (axis >= 0 && desc.bucket_dims[k].pad_safe)
          outDims[axis] = shape.dimSizes[k];
      }
      shape.empty &=
          std::find(outDims.begin(), outDims.end(), 0) != outDims.end();
      shape.outputDims.push_back(std::move(outDims));
    }
    return nullptr;
  };
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    bool matches = true;
    for (int32_t i = 0; matches && i < desc.num_inputs; ++i) {
      const graphc_tensor_desc &input = desc.inputs[i];
      matches = ranks[i] == input.rank;
      for (int32_t d = 0; matches && d < input.rank; ++d)
        matches = dims[i][d] == desc.plans[p].input_dims[i][d];
    }
    if (matches) {
      shape.parts.push_back({p, 0, 0});
      return finish();
    }
  }
  if (desc.num_plans == 1 && desc.num_bucket_dims == 0) {
    // One accepted shape: name the first input that differs from it.
    for (int32_t i = 0; i < desc.num_inputs; ++i) {
      const graphc_tensor_desc &input = desc.inputs[i];
      const int64_t *expected = desc.plans[0].input_dims[i];
      for (int32_t d = 0; d < input.rank; ++d) {
        if (dims[i][d] != expected[d])
          return makeStatus(
              GRAPHC_INVALID_ARGUMENT,
              "input " + quoted(input.name) + ": expected " +
                  formatTensorType(input.dtype, input.rank, expected) +
                  ", got " +
                  formatTensorType(input.dtype, input.rank, dims[i]));
      }
    }
  }

  if (desc.num_bucket_dims == 0) {
    std::string accepted;
    for (int32_t p = 0; p < desc.num_plans; ++p)
      accepted += std::string(p ? "; " : "") +
                  describeInputShapes(desc, desc.plans[p].input_dims) +
                  " (plan " + quoted(desc.plans[p].name) + ")";
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "no plan accepts " + describeInputShapes(desc, dims) +
                          "; accepted shapes: " + accepted);
  }

  // The size of every bucketed dim: the same on every axis that carries it.
  int32_t numDims = desc.num_bucket_dims;
  std::vector<int64_t> actual(numDims, -1);
  std::vector<std::string> seenAt(numDims);
  for (int32_t i = 0; i < desc.num_inputs; ++i) {
    const graphc_tensor_desc &input = desc.inputs[i];
    for (int32_t d = 0; d < input.rank; ++d) {
      std::string where = "input " + quoted(input.name) + " dim " +
                          std::to_string(d);
      int32_t k = bucketDimOf(desc, input, d);
      if (k < 0) {
        if (input.dims[d] >= 0 && dims[i][d] != input.dims[d])
          return makeStatus(
              GRAPHC_INVALID_ARGUMENT,
              "input " + quoted(input.name) + ": expected " +
                  formatTensorType(input.dtype, input.rank, input.dims,
                                   input.dim_names) +
                  ", got " +
                  formatTensorType(input.dtype, input.rank, dims[i]));
        continue;
      }
      if (actual[k] < 0) {
        actual[k] = dims[i][d];
        seenAt[k] = where;
      } else if (actual[k] != dims[i][d]) {
        return makeStatus(GRAPHC_INVALID_ARGUMENT,
                          "dim " + quoted(desc.bucket_dims[k].name) + " is " +
                              std::to_string(actual[k]) + " in " + seenAt[k] +
                              " but " + std::to_string(dims[i][d]) + " in " +
                              where);
      }
    }
  }

  // Each dim's bucket: its own size, else the next larger one where
  // padding is exact, else split past the largest where that is exact.
  // A model with a data-dependent output runs its buckets' sizes only:
  // padded rows would count in what a run finds, and the parts of a split
  // run would each find their own extent (the compiler marks such dims
  // exact; this guards against an artifact that says otherwise).
  int32_t dataDependentDim = -1;
  int32_t dataDependent = firstDataDependentOutput(desc, dataDependentDim);
  std::vector<int64_t> bucket(numDims, -1);
  for (int32_t k = 0; k < numDims; ++k) {
    const graphc_bucket_dim_desc &dim = desc.bucket_dims[k];
    int64_t size = actual[k];
    int64_t largest = dim.sizes[dim.num_sizes - 1];
    if (dataDependent >= 0 && std::find(dim.sizes, dim.sizes + dim.num_sizes,
                                        size) == dim.sizes + dim.num_sizes)
      return makeStatus(
          GRAPHC_INVALID_ARGUMENT,
          seenAt[k] + " (" + quoted(dim.name) + ") is " + std::to_string(size) +
              ", but the model runs " + quoted(dim.name) + " = " +
              describeSizes(dim) + " only: output " +
              quoted(desc.outputs[dataDependent].name) +
              " has data-dependent dim " + std::to_string(dataDependentDim) +
              ", so runs are neither padded nor split");
    for (int32_t s = 0; s < dim.num_sizes && bucket[k] < 0; ++s)
      if (dim.sizes[s] == size || (dim.pad_safe && dim.sizes[s] > size))
        bucket[k] = dim.sizes[s];
    bool splittable = dim.splittable && dim.pad_safe;
    for (int32_t i = 0; splittable && i < desc.num_inputs; ++i)
      splittable = axesCarrying(desc, i, k) <= 1;
    if (bucket[k] < 0 && size > largest && splittable &&
        shape.splitDim < 0) {
      shape.splitDim = k;
      bucket[k] = largest;
    }
    if (bucket[k] >= 0)
      continue;
    std::string message = seenAt[k] + " (" + quoted(dim.name) + ") is " +
                          std::to_string(size) + ", but the model runs " +
                          quoted(dim.name) + " = " + describeSizes(dim);
    if (!dim.pad_safe)
      message += " only: padding along it is not exact" + describeBreak(dim);
    else if (size > largest)
      message += ": larger sizes cannot run as several runs along it" +
                 (dim.splittable ? std::string(" (another dim is split)")
                                 : describeBreak(dim));
    return makeStatus(GRAPHC_INVALID_ARGUMENT, message);
  }

  shape.staged = true;
  shape.dimSizes = actual;
  auto planFor = [&](std::vector<int64_t> &sizes) -> graphc_status {
    int32_t plan = findPlan(desc, sizes);
    if (plan < 0) {
      std::string wanted;
      for (int32_t k = 0; k < numDims; ++k)
        wanted += (k ? "," : "") + std::string(desc.bucket_dims[k].name) +
                  "=" + std::to_string(sizes[k]);
      return makeStatus(GRAPHC_INTERNAL,
                        "the model has no plan for bucket " + wanted);
    }
    shape.parts.back().plan = plan;
    return nullptr;
  };
  if (shape.splitDim < 0) {
    shape.parts.push_back({-1, 0, 0});
    if (graphc_status status = planFor(bucket))
      return status;
    return finish();
  }
  // A part per largest bucket; the last one takes the smallest bucket that
  // covers what remains. The first part gives the outputs' dims; an empty
  // run needs no more, and a larger one at most GRAPHC_MAX_SPLIT_PARTS.
  const graphc_bucket_dim_desc &split = desc.bucket_dims[shape.splitDim];
  int64_t largest = split.sizes[split.num_sizes - 1];
  int64_t total = actual[shape.splitDim];
  auto addPart = [&](int64_t start) {
    int64_t size = std::min(largest, total - start);
    for (int32_t s = split.num_sizes; s-- > 0;)
      if (split.sizes[s] >= size)
        bucket[shape.splitDim] = split.sizes[s];
    shape.parts.push_back({-1, start, size});
    return planFor(bucket);
  };
  if (graphc_status status = addPart(0))
    return status;
  finish();
  if (shape.empty)
    return nullptr;
  // total > largest >= 1, so neither this nor `start` below overflows.
  int64_t count = (total - 1) / largest + 1;
  if (count > GRAPHC_MAX_SPLIT_PARTS)
    return makeStatus(
        GRAPHC_INVALID_ARGUMENT,
        seenAt[shape.splitDim] + " (" + quoted(split.name) + ") is " +
            std::to_string(total) + ": " + std::to_string(count) +
            " runs of the largest bucket (" + std::to_string(largest) +
            "), more than the " + std::to_string(GRAPHC_MAX_SPLIT_PARTS) +
            " one call may split into; make smaller requests");
  shape.parts.reserve(static_cast<size_t>(count));
  for (int64_t part = 1; part < count; ++part)
    if (graphc_status status = addPart(part * largest))
      return status;
  return nullptr;
}

namespace {
/// The axis of input `input` along which runs are split, or -1.
int32_t splitAxisOfInput(const graphc_model_desc &desc, const RunShape &shape,
                         int32_t input) {
  if (shape.splitDim < 0)
    return -1;
  for (int32_t d = 0; d < desc.inputs[input].rank; ++d)
    if (bucketDimOf(desc, desc.inputs[input], d) == shape.splitDim)
      return d;
  return -1;
}
} // namespace

/// A packed 4-bit tensor's box as its whole bytes: such tensors have static
/// dims and no bucketed axis (checkDescriptor), so every run copies them
/// whole, between tensors of the same dims.
static void packedAsBytes(BoxCopy &box, int32_t dtype) {
  if (!isFourBitDtype(dtype))
    return;
  int64_t count = elementCount(static_cast<int32_t>(box.srcDims.size()),
                               box.srcDims.data());
  int64_t bytes = storageBytes(dtype, count < 0 ? 0 : count);
  box.extent = box.srcDims = box.dstDims = {bytes};
  box.srcStart = box.dstStart = {0};
  box.elementBytes = 1;
}

BoxCopy graphc::rt::partInputCopy(const graphc_model &model,
                                  const RunShape &shape, const RunPart &part,
                                  int32_t input, const int64_t *callerDims) {
  const graphc_model_desc &desc = *model.desc;
  const graphc_tensor_desc &tensor = desc.inputs[input];
  const int64_t *planDims = desc.plans[part.plan].input_dims[input];
  BoxCopy box;
  box.srcDims.assign(callerDims, callerDims + tensor.rank);
  box.extent = box.srcDims;
  box.srcStart.assign(tensor.rank, 0);
  box.dstDims.assign(planDims, planDims + tensor.rank);
  box.dstStart.assign(tensor.rank, 0);
  box.elementBytes = graphc_dtype_size(tensor.dtype);
  if (int32_t axis = splitAxisOfInput(desc, shape, input); axis >= 0) {
    box.extent[axis] = part.size;
    box.srcStart[axis] = part.start;
  }
  packedAsBytes(box, tensor.dtype);
  return box;
}

std::optional<BoxCopy> graphc::rt::partOutputCopy(const graphc_model &model,
                                                  const RunShape &shape,
                                                  const RunPart &part,
                                                  int32_t output) {
  const graphc_model_desc &desc = *model.desc;
  const graphc_tensor_desc &tensor = desc.outputs[output];
  int32_t splitAxis = shape.splitDim < 0
                          ? -1
                          : desc.bucket_dims[shape.splitDim].output_axes[output];
  if (shape.splitDim >= 0 && splitAxis < 0 && &part != &shape.parts.front())
    return std::nullopt;
  const int64_t *planDims = desc.plans[part.plan].output_dims[output];
  BoxCopy box;
  box.srcDims.assign(planDims, planDims + tensor.rank);
  box.extent = box.srcDims;
  box.srcStart.assign(tensor.rank, 0);
  box.dstDims = shape.outputDims[output];
  box.dstStart.assign(tensor.rank, 0);
  box.elementBytes = graphc_dtype_size(tensor.dtype);
  // A run at a plan's dims (a batched one staged whole) copies it all.
  for (int32_t k = 0; shape.staged && k < desc.num_bucket_dims; ++k) {
    int32_t axis = desc.bucket_dims[k].output_axes[output];
    if (axis < 0 || !desc.bucket_dims[k].pad_safe)
      continue;
    box.extent[axis] = k == shape.splitDim ? part.size : shape.dimSizes[k];
  }
  if (splitAxis >= 0)
    box.dstStart[splitAxis] = part.start;
  packedAsBytes(box, tensor.dtype);
  return box;
}

graphc_status graphc::rt::bindRun(
    const graphc_model &model, DeviceRequirement device, const DLTensor *inputs,
    int32_t numInputs, const char *const *names, const DLTensor *outputs,
    int32_t numOutputs, std::vector<const DLTensor *> &ordered,
    RunShape &shape) {
  const graphc_model_desc &desc = *model.desc;
  if (numInputs > 0 && !inputs)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "inputs is NULL");
  if (numOutputs > 0 && !outputs)
    return makeStatus(GRAPHC_INVALID_ARGUMENT, "outputs is NULL");
  std::vector<int32_t> modelIndex;
  if (graphc_status status = orderInputs(model, numInputs, names, modelIndex))
    return status;
  ordered.assign(numInputs, nullptr);
  for (int32_t i = 0; i < numInputs; ++i)
    ordered[modelIndex[i]] = &inputs[i];

  std::vector<int32_t> ranks(numInputs);
  std::vector<const int64_t *> dims(numInputs);
  for (int32_t m = 0; m < desc.num_inputs; ++m) {
    const graphc_tensor_desc &input = desc.inputs[m];
    if (graphc_status status =
            checkTensor(*ordered[m], "input " + quoted(input.name), input,
                        input.dims, device))
      return status;
    ranks[m] = ordered[m]->ndim;
    dims[m] = ordered[m]->shape;
  }
  if (graphc_status status =
          resolveRun(model, ranks.data(), dims.data(), shape))
    return status;

  if (numOutputs != desc.num_outputs)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "expected " + std::to_string(desc.num_outputs) +
                          " outputs, got " + std::to_string(numOutputs));
  for (int32_t o = 0; o < numOutputs; ++o) {
    const graphc_tensor_desc &output = desc.outputs[o];
    if (graphc_status status =
            checkTensor(outputs[o], "output " + quoted(output.name), output,
                        shape.outputDims[o].data(), device))
      return status;
  }

  // Kernels read inputs while they write outputs (their parameters are
  // restrict-qualified): an output may share no byte with an input or with
  // another output.
  auto overlaps = [&](const DLTensor &a, const DLTensor &b) {
    auto [aBegin, aEnd] = byteRange(a);
    auto [bBegin, bEnd] = byteRange(b);
    return a.device.device_type == b.device.device_type && aBegin < bEnd &&
           bBegin < aEnd;
  };
  for (int32_t o = 0; o < numOutputs; ++o) {
    std::string name = quoted(desc.outputs[o].name);
    for (int32_t m = 0; m < desc.num_inputs; ++m)
      if (overlaps(outputs[o], *ordered[m]))
        return makeStatus(GRAPHC_INVALID_ARGUMENT,
                          "output " + name + " overlaps input " +
                              quoted(desc.inputs[m].name) +
                              "; outputs need memory of their own");
    for (int32_t other = 0; other < o; ++other)
      if (overlaps(outputs[o], outputs[other]))
        return makeStatus(GRAPHC_INVALID_ARGUMENT,
                          "output " + name + " overlaps output " +
                              quoted(desc.outputs[other].name) +
                              "; outputs need memory of their own");
  }
  return nullptr;
}

SegmentedTensor graphc::rt::wholeTensor(const DLTensor &tensor) {
  auto [begin, end] = byteRange(tensor);
  SegmentedTensor whole;
  whole.dims.assign(tensor.shape, tensor.shape + tensor.ndim);
  whole.segments.push_back(
      {tensorBase(tensor), end - begin, tensor.device.device_type != kDLCUDA});
  return whole;
}

namespace {
/// Whether `tensor` (an input's or output's description) names bucketed
/// dim `name` on axis d only when d is 0 (an input: on axis 0).
bool namesOnlyOnAxisZero(const graphc_tensor_desc &tensor, const char *name) {
  for (int32_t d = 1; tensor.dim_names && d < tensor.rank; ++d)
    if (tensor.dim_names[d] && std::strcmp(tensor.dim_names[d], name) == 0)
      return false;
  return true;
}

/// Why bucketed dim `k` cannot be a batch dim by where it is: the first
/// input or output that does not have it as axis 0 alone; "" when every
/// one does.
std::string batchAxisGap(const graphc_model_desc &desc, int32_t k) {
  const graphc_bucket_dim_desc &dim = desc.bucket_dims[k];
  std::string name = quoted(dim.name);
  if (desc.num_inputs == 0)
    return "the model has no inputs";
  for (int32_t i = 0; i < desc.num_inputs; ++i) {
    const graphc_tensor_desc &input = desc.inputs[i];
    if (input.rank < 1 || bucketDimOf(desc, input, 0) != k)
      return "dim " + name + " is not axis 0 of input " + quoted(input.name);
    if (axesCarrying(desc, i, k) != 1)
      return "input " + quoted(input.name) + " has dim " + name +
             " on another axis too";
  }
  for (int32_t o = 0; o < desc.num_outputs; ++o) {
    const graphc_tensor_desc &output = desc.outputs[o];
    if (dim.output_axes[o] != 0)
      return "dim " + name + " is not axis 0 of output " + quoted(output.name);
    if (!namesOnlyOnAxisZero(output, dim.name))
      return "output " + quoted(output.name) + " has dim " + name +
             " on another axis too";
  }
  return "";
}
} // namespace

graphc_status graphc::rt::findBatchDim(const graphc_model &model,
                                       int32_t numRequests, int32_t &dim) {
  const graphc_model_desc &desc = *model.desc;
  std::string prefix = numRequests > 0
                           ? std::to_string(numRequests) +
                                 " requests run together need a batch dim, and "
                                 "the model has none: "
                           : std::string("the model has no batch dim: ");
  // Each request's extent would be lost in the batch's.
  int32_t dataDependentDim = -1;
  if (int32_t o = firstDataDependentOutput(desc, dataDependentDim); o >= 0)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      prefix + "output " + quoted(desc.outputs[o].name) +
                          " has data-dependent dim " +
                          std::to_string(dataDependentDim) +
                          ", whose extent each run finds for the whole run, "
                          "so requests cannot share one");
  std::string why;
  for (int32_t k = 0; k < desc.num_bucket_dims; ++k) {
    const graphc_bucket_dim_desc &bucket = desc.bucket_dims[k];
    std::string gap = batchAxisGap(desc, k);
    if (!gap.empty()) {
      // Name the dim that comes closest: axis 0 of the first input.
      bool first = desc.num_inputs > 0 && desc.inputs[0].rank > 0 &&
                   bucketDimOf(desc, desc.inputs[0], 0) == k;
      if (why.empty() || first)
        why = gap;
      continue;
    }
    if (bucket.pad_safe && bucket.splittable) {
      dim = k;
      return nullptr;
    }
    // On the right axes, but the model mixes the rows.
    why = "dim " + quoted(bucket.name) +
          " is axis 0 of every input and output, but " +
          (bucket.pad_safe
               ? "the model mixes positions along it" + describeBreak(bucket) +
                     ", so requests cannot share a run"
               : "it takes exact sizes only" + describeBreak(bucket));
    break;
  }
  if (desc.num_bucket_dims == 0)
    why = "it has no bucketed dims";
  return makeStatus(GRAPHC_INVALID_ARGUMENT, prefix + why);
}

graphc_status graphc::rt::bindBatch(const graphc_model &model,
                                    DeviceRequirement device,
                                    int32_t numRequests,
                                    const DLTensor *const *requestInputs,
                                    int32_t numInputs, const char *const *names,
                                    const DLTensor *const *requestOutputs,
                                    int32_t numOutputs, BatchRun &batch) {
  const graphc_model_desc &desc = *model.desc;
  if (numRequests < 1)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "num_requests is " + std::to_string(numRequests) +
                          "; a batch needs at least one request");
  if (!requestInputs || !requestOutputs)
    return makeStatus(GRAPHC_INVALID_ARGUMENT,
                      "request_inputs and request_outputs must not be NULL");
  int32_t batchDim = -1;
  if (numRequests > 1)
    if (graphc_status status = findBatchDim(model, numRequests, batchDim))
      return status;

  // Each request as a run of its own.
  std::vector<std::vector<const DLTensor *>> ordered(numRequests);
  std::vector<RunShape> shapes(numRequests);
  for (int32_t r = 0; r < numRequests; ++r)
    if (graphc_status status =
            bindRun(model, device, requestInputs[r], numInputs, names,
                    requestOutputs[r], numOutputs, ordered[r], shapes[r]))
      return prefixStatus("request " + std::to_string(r) + ": ", status);

  batch = BatchRun();
  batch.inputs.resize(desc.num_inputs);
  batch.outputs.resize(desc.num_outputs);
  for (int32_t r = 0; r < numRequests; ++r) {
    for (int32_t m = 0; m < desc.num_inputs; ++m) {
      SegmentedTensor part = wholeTensor(*ordered[r][m]);
      batch.inputs[m].segments.push_back(part.segments.front());
    }
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      SegmentedTensor part = wholeTensor(requestOutputs[r][o]);
      batch.outputs[o].segments.push_back(part.segments.front());
    }
  }
  if (numRequests == 1) {
    for (int32_t m = 0; m < desc.num_inputs; ++m)
      batch.inputs[m].dims = wholeTensor(*ordered[0][m]).dims;
    for (int32_t o = 0; o < desc.num_outputs; ++o)
      batch.outputs[o].dims = wholeTensor(requestOutputs[0][o]).dims;
    batch.shape = std::move(shapes[0]);
    return nullptr;
  }

  // The requests differ along the batch dim (axis 0) only; the whole is
  // their concatenation along it.
  const char *dimName = desc.bucket_dims[batchDim].name;
  std::vector<int32_t> ranks(desc.num_inputs);
  std::vector<const int64_t *> dims(desc.num_inputs);
  for (int32_t m = 0; m < desc.num_inputs; ++m) {
    const graphc_tensor_desc &input = desc.inputs[m];
    const DLTensor &first = *ordered[0][m];
    std::vector<int64_t> &whole = batch.inputs[m].dims;
    whole.assign(first.shape, first.shape + first.ndim);
    for (int32_t r = 1; r < numRequests; ++r) {
      const DLTensor &tensor = *ordered[r][m];
      if (!std::equal(tensor.shape + 1, tensor.shape + tensor.ndim,
                      first.shape + 1))
        return makeStatus(
            GRAPHC_INVALID_ARGUMENT,
            "request " + std::to_string(r) + ": input " + quoted(input.name) +
                " is " +
                formatTensorType(input.dtype, tensor.ndim, tensor.shape) +
                " but request 0's is " +
                formatTensorType(input.dtype, first.ndim, first.shape) +
                "; the requests of a batch may differ in dim 0 (" +
                quoted(dimName) + ") only");
      if (__builtin_add_overflow(whole[0], tensor.shape[0], &whole[0]))
        return makeStatus(GRAPHC_INVALID_ARGUMENT,
                          "the requests' sizes of dim " + quoted(dimName) +
                              " add up to more than " +
                              std::to_string(INT64_MAX));
    }
    ranks[m] = input.rank;
    dims[m] = whole.data();
  }
  if (graphc_status status =
          resolveRun(model, ranks.data(), dims.data(), batch.shape))
    return prefixStatus(
        "the batch of " + std::to_string(numRequests) + " requests: ", status);
  // Request r's rows of each output follow the earlier requests' rows.
  for (int32_t o = 0; o < desc.num_outputs; ++o) {
    const graphc_tensor_desc &output = desc.outputs[o];
    std::vector<int64_t> &whole = batch.outputs[o].dims;
    whole = batch.shape.outputDims[o];
    int64_t rows = 0;
    bool agree = true;
    for (int32_t r = 0; r < numRequests; ++r) {
      const std::vector<int64_t> &part = shapes[r].outputDims[o];
      agree &= std::equal(part.begin() + 1, part.end(), whole.begin() + 1);
      rows += part[0];
    }
    if (!agree || rows != whole[0])
      return makeStatus(
          GRAPHC_INVALID_ARGUMENT,
          "output " + quoted(output.name) + " of the batch is " +
              formatTensorType(output.dtype, output.rank, whole.data()) +
              ", not its requests' outputs one after another");
  }

  // No output byte may be any other tensor's of the batch: the byte ranges
  // of every request's tensors sorted, and each compared with the furthest
  // reaching input and output before it.
  struct Range {
    uintptr_t begin, end;
    bool host, output;
    int32_t request, index;
  };
  std::vector<Range> ranges;
  for (int32_t r = 0; r < numRequests; ++r) {
    auto add = [&](const DLTensor &tensor, bool output, int32_t index) {
      auto [begin, end] = byteRange(tensor);
      if (begin < end)
        ranges.push_back({begin, end, tensor.device.device_type != kDLCUDA,
                          output, r, index});
    };
    for (int32_t m = 0; m < desc.num_inputs; ++m)
      add(*ordered[r][m], false, m);
    for (int32_t o = 0; o < desc.num_outputs; ++o)
      add(requestOutputs[r][o], true, o);
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) {
    return std::make_tuple(a.host, a.begin, a.request, a.output, a.index) <
           std::make_tuple(b.host, b.begin, b.request, b.output, b.index);
  });
  auto describe = [&](const Range &range) {
    return (range.output ? "output " + quoted(desc.outputs[range.index].name)
                         : "input " + quoted(desc.inputs[range.index].name));
  };
  const Range *furthest[2] = {nullptr, nullptr}; // input, output
  for (size_t at = 0; at < ranges.size(); ++at) {
    const Range &range = ranges[at];
    for (const Range *before : furthest) {
      if (!before || before->host != range.host || range.begin >= before->end ||
          (!range.output && !before->output))
        continue;
      const Range &output = range.output ? range : *before;
      const Range &other = range.output ? *before : range;
      return makeStatus(GRAPHC_INVALID_ARGUMENT,
                        "request " + std::to_string(output.request) + ": " +
                            describe(output) + " overlaps request " +
                            std::to_string(other.request) + "'s " +
                            describe(other) +
                            "; outputs need memory of their own");
    }
    const Range *&slot = furthest[range.output];
    if (!slot || slot->host != range.host || slot->end < range.end)
      slot = &range;
  }
  return nullptr;
}
