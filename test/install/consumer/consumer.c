/*===- consumer.c - a service-like user of the installed graphc runtime ----===*
 *
 * consumer MODEL.so INPUT.bin OUTPUT.bin: loads a cpu model with one float32
 * input and one float32 output, takes their dims from its first plan, runs
 * it on the raw
 * floats of INPUT.bin and writes the raw floats of the output to OUTPUT.bin.
 * Prints one line and exits 1 on any error.
 *===----------------------------------------------------------------------===*/

#include <graphc/runtime.h>

#include <stdio.h>
#include <stdlib.h>

static int fail_status(const char *what, graphc_status status) {
  fprintf(stderr, "consumer: %s: %s (%s)\n", what,
          graphc_status_message(status),
          graphc_code_name(graphc_status_code(status)));
  graphc_status_free(status);
  return 1;
}

static int64_t element_count(int32_t rank, const int64_t *dims) {
  int64_t count = 1;
  for (int32_t i = 0; i < rank; ++i)
    count *= dims[i];
  return count;
}

static DLTensor host_tensor(const graphc_tensor_info *info, const int64_t *dims,
                            float *data) {
  DLTensor tensor = {0};
  tensor.data = data;
  tensor.device.device_type = kDLCPU;
  tensor.ndim = info->rank;
  tensor.dtype.code = kDLFloat;
  tensor.dtype.bits = 32;
  tensor.dtype.lanes = 1;
  tensor.shape = (int64_t *)dims;
  return tensor;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: consumer MODEL.so INPUT.bin OUTPUT.bin\n");
    return 2;
  }
  graphc_model *model = NULL;
  graphc_status status = graphc_model_load(argv[1], NULL, &model);
  if (status)
    return fail_status("cannot load the model", status);
  graphc_tensor_info in_info, out_info;
  graphc_plan_info plan;
  if ((status = graphc_model_input_info(model, 0, &in_info)) ||
      (status = graphc_model_output_info(model, 0, &out_info)) ||
      (status = graphc_model_plan_info(model, 0, &plan)))
    return fail_status("cannot read the model's tensors", status);
  int64_t in_count = element_count(in_info.rank, plan.input_dims[0]);
  int64_t out_count = element_count(out_info.rank, plan.output_dims[0]);

  float *input = malloc(sizeof(float) * (size_t)in_count);
  float *output = malloc(sizeof(float) * (size_t)out_count);
  FILE *file = fopen(argv[2], "rb");
  if (!input || !output || !file ||
      fread(input, sizeof(float), (size_t)in_count, file) != (size_t)in_count) {
    fprintf(stderr, "consumer: cannot read %lld floats from %s\n",
            (long long)in_count, argv[2]);
    return 1;
  }
  fclose(file);

  graphc_session *session = NULL;
  if ((status = graphc_session_create(model, NULL, &session)))
    return fail_status("cannot create a session", status);
  DLTensor in_tensor = host_tensor(&in_info, plan.input_dims[0], input);
  DLTensor out_tensor = host_tensor(&out_info, plan.output_dims[0], output);
  if ((status =
           graphc_session_run(session, &in_tensor, 1, NULL, &out_tensor, 1)))
    return fail_status("run failed", status);
  graphc_session_release(session);
  graphc_model_release(model);

  file = fopen(argv[3], "wb");
  if (!file ||
      fwrite(output, sizeof(float), (size_t)out_count, file) !=
          (size_t)out_count ||
      fclose(file) != 0) {
    fprintf(stderr, "consumer: cannot write %s\n", argv[3]);
    return 1;
  }
  free(input);
  free(output);
  printf("consumer: ran %s: %lld inputs -> %lld outputs\n", argv[1],
         (long long)in_count, (long long)out_count);
  return 0;
}
