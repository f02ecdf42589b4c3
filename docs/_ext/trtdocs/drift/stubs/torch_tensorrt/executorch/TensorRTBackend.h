// Declaration stub of <torch_tensorrt/executorch/TensorRTBackend.h>, the TensorRT
// delegate's header, which no package the build installs carries. Written for the
// C++ drift guard (docs/_ext/trtdocs/drift/cpp.py): it declares only what the guide's
// blocks use, with the signatures of the real header named above each declaration.
// The GPU job compiles the same blocks against that real header (SOURCES.toml).
#pragma once

// The real header includes these two, so a block that includes it may use them too.
// It also includes TensorRT's <NvInfer.h>; no block uses a TensorRT name, and no
// package here carries TensorRT's headers, so this stub leaves it out.
#include <cuda_runtime.h>
#include <executorch/runtime/backend/interface.h>

#include <cstdint>

namespace torch_tensorrt {
namespace executorch_backend {

// real: pytorch/TensorRT@ba4a95bdf4c43ebe8bfe15bc429fa46059265470
//   cpp/include/torch_tensorrt/executorch/TensorRTBackend.h, class OptimizationProfileGuard
//   (branch executorch-optimization-profile; the 2.14 header has no such class).
// Public members only; the private state and the AutoTag constructor are left out.
class OptimizationProfileGuard {
 public:
  explicit OptimizationProfileGuard(int32_t profile_index);
  OptimizationProfileGuard(bool) = delete;
  static OptimizationProfileGuard automatic();
  ~OptimizationProfileGuard();
  OptimizationProfileGuard(const OptimizationProfileGuard&) = delete;
  OptimizationProfileGuard& operator=(const OptimizationProfileGuard&) = delete;
};

}  // namespace executorch_backend
}  // namespace torch_tensorrt
