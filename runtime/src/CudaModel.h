//===- CudaModel.h - per-device modules and weights of a model --*- C++ -*-===//
#ifndef GRAPHC_RUNTIME_SRC_CUDAMODEL_H
#define GRAPHC_RUNTIME_SRC_CUDAMODEL_H

#include "graphc/runtime.h"
#include "runtime/src/CublasLt.h"
#include "runtime/src/CudaDriver.h"
#include "runtime/src/Cudnn.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace graphc::rt {

/// Picks the image to load on a device of compute capability `sm` (major *
/// 10 + minor): the cubin built for exactly that SM, else the newest cubin of
/// the same major version and an older minor (binary compatible), else the
/// PTX with the highest SM not above it, among the images of `unit`.
/// Returns -1 and sets `error` when none fits.
int32_t selectImage(const graphc_model_desc &desc, int32_t sm,
                    std::string &error, int32_t unit = 0);

/// The oldest driver (cuDriverGetVersion encoding: 1000 * major + 10 *
/// minor) that can JIT PTX text `ptx`, from its `.version` directive: PTX ISA
/// 9.0 is CUDA 13.0, 8.8 is 12.9, 8.5 is 12.5, 7.8 is 11.8, ... Returns 0
/// when the directive is missing or the ISA is newer than this table (the
/// driver's own error is then reported as is); `isa` gets "9.0".
int ptxRequiredDriver(const char *ptx, uint64_t size, std::string &isa);

/// "13.0" for 13000.
std::string driverVersionText(int version);

/// A model's state on one device: its module and weights, shared by every
/// session on that device.
struct CudaDevice {
  int32_t ordinal = 0;
  cu::Device device = 0;
  cu::Context context = nullptr;
  /// One per unit of the descriptor; none when the model has no generated
  /// kernel (only library kernels).
  std::vector<cu::Module> modules;
  /// One per descriptor kernel; null for library kernels but for cuDNN
  /// kernels with an epilogue kernel (the function of that).
  std::vector<cu::Function> functions;
  cu::DevicePtr weights = 0;
  /// The device's compute capability (90 for 9.0), and the oldest SM the
  /// loaded images were compiled for (0 for the emulation image).
  int32_t sm = 0;
  int32_t codeSm = 0;
};

/// The cuda half of a graphc_model. Devices are set up lazily, once, under
/// a mutex, so sessions on different threads can share the model.
class CudaModel {
public:
  /// Loads the driver and checks that device `ordinal` exists and that one
  /// of the model's images covers its SM; loads cuBLASLt and cuDNN when a
  /// kernel calls them.
  static graphc_status create(const graphc_model &model, int32_t ordinal,
                              std::unique_ptr<CudaModel> &out);
  ~CudaModel();

  /// The model's state on device `ordinal`; the first call per device loads
  /// the module and uploads the weights.
  graphc_status acquire(const graphc_model &model, int32_t ordinal,
                        CudaDevice *&out);

  const cu::Driver &driver() const { return drv; }
  /// cuBLASLt; null when no kernel calls it.
  const lt::Library *cublasLt() const { return lt; }
  /// cuDNN; null when no kernel calls it.
  const dnn::Library *cudnn() const { return dnn; }

private:
  CudaModel(const cu::Driver &drv, const lt::Library *lt,
            const dnn::Library *dnn)
      : drv(drv), lt(lt), dnn(dnn) {}
  graphc_status setUp(const graphc_model &model, CudaDevice &state);
  /// Loads `images` (one per unit) and finds the generated kernels in them.
  graphc_status loadImages(const graphc_model &model, CudaDevice &state,
                           const std::vector<int32_t> &images);

  const cu::Driver &drv;
  const lt::Library *lt;
  const dnn::Library *dnn;
  std::mutex mutex;
  std::vector<std::unique_ptr<CudaDevice>> devices;
};

} // namespace graphc::rt

#endif
