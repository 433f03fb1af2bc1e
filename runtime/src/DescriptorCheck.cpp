//===- DescriptorCheck.cpp - validating a loaded descriptor ---------------===//
#include "runtime/src/DescriptorCheck.h"

#include "graphc/runtime.h"
#include "runtime/src/Dtype.h"

using namespace graphc::rt;

namespace {
std::string checkTensor(const graphc_tensor_desc &tensor,
                        const std::string &what) {
  if (!tensor.name)
    return what + " has no name";
  std::string where = what + " '" + tensor.name + "'";
  if (graphc_dtype_size(tensor.dtype) == 0)
    return where + " has unsupported dtype " + std::to_string(tensor.dtype);
  if (tensor.rank < 0 || (tensor.rank > 0 && !tensor.dims))
    return where + " has no valid dims";
  for (int32_t i = 0; i < tensor.rank; ++i) {
    if (tensor.dims[i] < -1)
      return where + " has dim " + std::to_string(tensor.dims[i]);
  }
  return "";
}

/// Checks a plan's static dims for the model tensors `tensors`.
std::string checkPlanDims(const graphc_tensor_desc *tensors, int32_t count,
                          const int64_t *const *dims, const std::string &where,
                          const char *what) {
  if (count > 0 && !dims)
    return where + " has no " + what + " dims";
  for (int32_t i = 0; i < count; ++i) {
    const graphc_tensor_desc &tensor = tensors[i];
    if (tensor.rank > 0 && !dims[i])
      return where + " has no dims for " + what + " '" + tensor.name + "'";
    for (int32_t d = 0; d < tensor.rank; ++d) {
      if (dims[i][d] < 0 ||
          (tensor.dims[d] >= 0 && tensor.dims[d] != dims[i][d]))
        return where + " gives " + what + " '" + tensor.name + "' shape " +
               formatTensorType(tensor.dtype, tensor.rank, dims[i]) +
               ", which does not fit " +
               formatTensorType(tensor.dtype, tensor.rank, tensor.dims,
                                tensor.dim_names);
    }
    if (planTensorBytes(tensor, dims[i]) == UINT64_MAX)
      return where + " gives " + what + " '" + tensor.name +
             "' a size that overflows";
  }
  return "";
}

bool rangeWithin(const graphc_buffer_ref &ref, uint64_t limit) {
  return ref.offset <= limit && ref.size <= limit - ref.offset;
}

std::string checkBufferRef(const graphc_model_desc &desc,
                           const graphc_plan_desc &plan,
                           const graphc_buffer_ref &ref,
                           const std::string &where) {
  auto range = [&]() {
    return "[" + std::to_string(ref.offset) + ", " +
           std::to_string(ref.offset + ref.size) + ")";
  };
  switch (ref.kind) {
  case GRAPHC_BUFFER_NONE:
    return "";
  case GRAPHC_BUFFER_ARENA:
    if (!rangeWithin(ref, plan.arena_bytes))
      return where + ": arena range " + range() + " exceeds the arena (" +
             std::to_string(plan.arena_bytes) + " bytes)";
    return "";
  case GRAPHC_BUFFER_WEIGHTS:
    if (!rangeWithin(ref, desc.weights_size))
      return where + ": weights range " + range() + " exceeds the weights (" +
             std::to_string(desc.weights_size) + " bytes)";
    return "";
  case GRAPHC_BUFFER_INPUT:
  case GRAPHC_BUFFER_OUTPUT: {
    bool isInput = ref.kind == GRAPHC_BUFFER_INPUT;
    int32_t count = isInput ? desc.num_inputs : desc.num_outputs;
    const char *what = isInput ? "input" : "output";
    if (ref.index < 0 || ref.index >= count)
      return where + ": " + what + " index " + std::to_string(ref.index) +
             " out of range";
    const graphc_tensor_desc &tensor =
        isInput ? desc.inputs[ref.index] : desc.outputs[ref.index];
    uint64_t bytes =
        planTensorBytes(tensor, isInput ? plan.input_dims[ref.index]
                                        : plan.output_dims[ref.index]);
    if (!rangeWithin(ref, bytes))
      return where + ": range " + range() + " exceeds " + what + " '" +
             tensor.name + "' (" + std::to_string(bytes) + " bytes)";
    return "";
  }
  default:
    return where + ": unknown buffer kind " + std::to_string(ref.kind);
  }
}

std::string checkStep(const graphc_model_desc &desc,
                      const graphc_plan_desc &plan,
                      const graphc_step_desc &step, const std::string &where) {
  if (step.num_args < 0 || (step.num_args > 0 && !step.args))
    return where + " has no valid arguments";
  switch (step.kind) {
  case GRAPHC_STEP_LAUNCH:
  case GRAPHC_STEP_HOST_CALL: {
    bool isLaunch = step.kind == GRAPHC_STEP_LAUNCH;
    if (isLaunch != (desc.target == GRAPHC_TARGET_CUDA))
      return where + " is a " + (isLaunch ? "launch" : "host call") +
             " step in a " +
             (desc.target == GRAPHC_TARGET_CUDA ? "cuda" : "cpu") + " model";
    if (step.kernel < 0 || step.kernel >= desc.num_kernels)
      return where + " names kernel " + std::to_string(step.kernel) +
             " out of range";
    if (!isLaunch && !desc.kernels[step.kernel].host_fn)
      return where + " calls kernel '" + desc.kernels[step.kernel].name +
             "', which has no host function";
    break;
  }
  case GRAPHC_STEP_COPY:
    if (step.num_args != 2 || step.args[0].kind == GRAPHC_BUFFER_NONE ||
        step.args[1].kind == GRAPHC_BUFFER_NONE)
      return where + " is a copy without a source and a destination";
    if (step.args[0].size < step.args[1].size)
      return where + " copies " + std::to_string(step.args[1].size) +
             " bytes from a " + std::to_string(step.args[0].size) +
             "-byte source";
    break;
  default:
    return where + " has unknown kind " + std::to_string(step.kind);
  }
  for (int32_t a = 0; a < step.num_args; ++a) {
    std::string error = checkBufferRef(
        desc, plan, step.args[a], where + " argument " + std::to_string(a));
    if (!error.empty())
      return error;
  }
  return "";
}
/// A bucketed dim must name input axes, list ascending sizes, and (when
/// runs pad along it) name output axes that every plan sizes like its
/// inputs: slicing copies along them.
std::string checkBucketDim(const graphc_model_desc &desc, int32_t k) {
  const graphc_bucket_dim_desc &dim = desc.bucket_dims[k];
  std::string where = "bucket dim " + std::to_string(k);
  if (!dim.name || !dim.name[0])
    return where + " has no name";
  where = "bucket dim '" + std::string(dim.name) + "'";
  if (dim.num_sizes < 1 || !dim.sizes)
    return where + " has no sizes";
  for (int32_t s = 0; s < dim.num_sizes; ++s)
    if (dim.sizes[s] < 1 || (s && dim.sizes[s] <= dim.sizes[s - 1]))
      return where + " has sizes that are not positive and ascending";
  if (desc.num_outputs && !dim.output_axes)
    return where + " has no output axes";
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    // The plan's size of this dim, from an input axis that carries it.
    int64_t size = -1;
    for (int32_t i = 0; size < 0 && i < desc.num_inputs; ++i)
      for (int32_t d = 0; d < desc.inputs[i].rank; ++d)
        if (desc.inputs[i].dims[d] < 0 && desc.inputs[i].dim_names &&
            desc.inputs[i].dim_names[d] &&
            std::string(desc.inputs[i].dim_names[d]) == dim.name) {
          size = plan.input_dims[i][d];
          break;
        }
    if (size < 0)
      return where + " is carried by no input";
    for (int32_t o = 0; o < desc.num_outputs; ++o) {
      int32_t axis = dim.output_axes[o];
      if (axis < -1 || axis >= desc.outputs[o].rank)
        return where + " names axis " + std::to_string(axis) + " of output " +
               std::to_string(o);
      if (axis >= 0 && dim.pad_safe && plan.output_dims[o][axis] != size)
        return where + " is " + std::to_string(size) + " in plan '" +
               (plan.name ? plan.name : "") + "' but output " +
               std::to_string(o) + " axis " + std::to_string(axis) +
               " is " + std::to_string(plan.output_dims[o][axis]);
    }
  }
  return "";
}
} // namespace

uint64_t graphc::rt::planTensorBytes(const graphc_tensor_desc &tensor,
                                     const int64_t *planDims) {
  int64_t count = elementCount(tensor.rank, planDims);
  uint64_t bytes;
  if (count < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(count),
                             graphc_dtype_size(tensor.dtype), &bytes))
    return UINT64_MAX;
  return bytes;
}

std::string graphc::rt::checkDescriptor(const graphc_model_desc &desc) {
  if (desc.target != GRAPHC_TARGET_CPU && desc.target != GRAPHC_TARGET_CUDA)
    return "unknown target " + std::to_string(desc.target);
  if (desc.num_inputs < 0 || desc.num_outputs < 0 || desc.num_plans < 0 ||
      desc.num_kernels < 0 || desc.num_images < 0)
    return "negative table size";
  if ((desc.num_inputs && !desc.inputs) ||
      (desc.num_outputs && !desc.outputs) || (desc.num_plans && !desc.plans) ||
      (desc.num_kernels && !desc.kernels) || (desc.num_images && !desc.images))
    return "missing table";
  if (desc.num_plans == 0)
    return "no plans";
  for (int32_t i = 0; i < desc.num_inputs; ++i) {
    std::string error =
        checkTensor(desc.inputs[i], "input " + std::to_string(i));
    if (!error.empty())
      return error;
  }
  for (int32_t i = 0; i < desc.num_outputs; ++i) {
    std::string error =
        checkTensor(desc.outputs[i], "output " + std::to_string(i));
    if (!error.empty())
      return error;
  }
  for (int32_t i = 0; i < desc.num_kernels; ++i) {
    if (!desc.kernels[i].name)
      return "kernel " + std::to_string(i) + " has no name";
  }
  if (desc.target == GRAPHC_TARGET_CUDA && desc.num_images == 0)
    return "a cuda model without device images";
  for (int32_t i = 0; i < desc.num_images; ++i) {
    const graphc_image_desc &image = desc.images[i];
    if (!image.data || image.size == 0)
      return "image " + std::to_string(i) + " is empty";
    if (image.format != GRAPHC_IMAGE_CUBIN && image.format != GRAPHC_IMAGE_PTX &&
        image.format != GRAPHC_IMAGE_HOST_EMULATION)
      return "image " + std::to_string(i) + " has unknown format " +
             std::to_string(image.format);
  }
  if (desc.weights_size && !desc.weights &&
      (!desc.weights_file || !desc.weights_file[0]))
    return "weights neither embedded nor in a side file";
  for (int32_t p = 0; p < desc.num_plans; ++p) {
    const graphc_plan_desc &plan = desc.plans[p];
    std::string where = "plan " + std::to_string(p);
    if (!plan.name)
      return where + " has no name";
    where = "plan '" + std::string(plan.name) + "'";
    std::string error = checkPlanDims(desc.inputs, desc.num_inputs,
                                      plan.input_dims, where, "input");
    if (error.empty())
      error = checkPlanDims(desc.outputs, desc.num_outputs, plan.output_dims,
                            where, "output");
    if (!error.empty())
      return error;
    if (plan.num_steps < 0 || (plan.num_steps && !plan.steps))
      return where + " has no valid steps";
    for (int32_t s = 0; s < plan.num_steps; ++s) {
      error = checkStep(desc, plan, plan.steps[s],
                        where + " step " + std::to_string(s));
      if (!error.empty())
        return error;
    }
  }
  // After the plans: the bucket dims are checked against their dims.
  if (desc.num_bucket_dims < 0 ||
      (desc.num_bucket_dims && !desc.bucket_dims))
    return "the bucket dim table is missing";
  for (int32_t k = 0; k < desc.num_bucket_dims; ++k) {
    std::string error = checkBucketDim(desc, k);
    if (!error.empty())
      return error;
  }
  return "";
}
