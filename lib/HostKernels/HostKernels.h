/*===- HostKernels.h - reference kernels for every graph op ---------------===*
 *
 * One implementation of each graph op's semantics on the host. It is used by
 * the compiler to fold constant sub-graphs and linked into cpu-target model
 * .so files, whose generated kernels call it. Pure C ABI, no allocation
 * visible to the caller: outputs are preallocated with their (static) dims.
 *
 * Conventions:
 *  - `op` names are graph dialect mnemonics ("add", "reduce_sum", ...);
 *  - inputs mirror the op's ONNX input slots; an absent optional input has
 *    data == NULL and rank == -1;
 *  - attributes carry their ONNX names; a missing attribute takes its ONNX
 *    default;
 *  - dtypes use the ONNX TensorProto.DataType numbering.
 *===----------------------------------------------------------------------===*/
#ifndef GRAPHC_HOSTKERNELS_HOSTKERNELS_H
#define GRAPHC_HOSTKERNELS_HOSTKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gc_dtype {
  GC_DTYPE_UNDEFINED = 0,
  GC_DTYPE_F32 = 1,
  GC_DTYPE_U8 = 2,
  GC_DTYPE_I8 = 3,
  GC_DTYPE_U16 = 4,
  GC_DTYPE_I16 = 5,
  GC_DTYPE_I32 = 6,
  GC_DTYPE_I64 = 7,
  GC_DTYPE_BOOL = 9,
  GC_DTYPE_F16 = 10,
  GC_DTYPE_F64 = 11,
  GC_DTYPE_U32 = 12,
  GC_DTYPE_U64 = 13,
  GC_DTYPE_BF16 = 16,
  GC_DTYPE_F8E4M3FN = 17,
  GC_DTYPE_F8E4M3FNUZ = 18,
  GC_DTYPE_F8E5M2 = 19,
  GC_DTYPE_F8E5M2FNUZ = 20,
} gc_dtype;

/* Bytes per element of a dtype, 0 for unknown ones. */
size_t gc_dtype_size(int32_t dtype);

typedef struct gc_tensor {
  int32_t dtype;       /* gc_dtype */
  int32_t rank;        /* -1: absent optional input */
  const int64_t *dims; /* rank entries */
  void *data;          /* dense, row-major */
} gc_tensor;

typedef enum gc_attr_kind {
  GC_ATTR_INT = 0,    /* i */
  GC_ATTR_FLOAT = 1,  /* f */
  GC_ATTR_STRING = 2, /* s */
  GC_ATTR_INTS = 3,   /* ints[count] */
  GC_ATTR_FLOATS = 4, /* floats[count] */
  GC_ATTR_TENSOR = 5, /* t */
  GC_ATTR_TYPE = 6,   /* i holds a gc_dtype */
} gc_attr_kind;

typedef struct gc_attr {
  const char *name;
  int32_t kind;
  int64_t count;
  int64_t i;
  double f;
  const char *s;
  const int64_t *ints;
  const double *floats;
  const gc_tensor *t;
} gc_attr;

typedef struct gc_attrs {
  int32_t count;
  const gc_attr *items;
} gc_attrs;

/* What a kernel returns when a value of its run-time data is out of range
 * (an index, a sequence length, an axis read from a tensor): the caller's
 * data is wrong, not the model. Other failures return 1. The runtime reports
 * it as GRAPHC_INVALID_ARGUMENT (GRAPHC_HOST_FN_BAD_VALUE in descriptor.h). */
#define GC_STATUS_BAD_VALUE 2

/* Returns 0 on success; otherwise writes a lower-case message into err and
 * returns non-zero (GC_STATUS_BAD_VALUE or 1). */
typedef int (*gc_host_kernel_fn)(const gc_tensor *inputs, int32_t num_inputs,
                                 gc_tensor *outputs, int32_t num_outputs,
                                 const gc_attrs *attrs, char *err,
                                 size_t err_len);

/* The kernel for a graph op mnemonic, or NULL when there is none. */
gc_host_kernel_fn gc_host_kernel_lookup(const char *op);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHC_HOSTKERNELS_HOSTKERNELS_H */
