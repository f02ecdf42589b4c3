// Declaration stub of <executorch/extension/cuda/caller_stream.h>, ExecuTorch's CUDA
// stream extension. ExecuTorch's C++ package on PyPI (the CPU wheel) does not carry
// it; a source build with EXECUTORCH_BUILD_CUDA has it. Written for the C++ drift
// guard (docs/_ext/trtdocs/drift/cpp.py): it declares only what the guide's blocks
// use, with the signatures of the real header named above each declaration. The GPU
// job compiles the same blocks against that real header (SOURCES.toml).
#pragma once

// The real header includes CUDA's runtime API for cudaStream_t.
#include <cuda_runtime.h>

namespace executorch::extension::cuda {

// real: pytorch/executorch@e4d02f41f7909e8ed5bf4a14ffc520d733453d9f (tag v1.4.1)
//   extension/cuda/caller_stream.h, class CallerStreamGuard.
// Its export macro (EXECUTORCH_EXTENSION_CUDA_API) and private state are left out.
class CallerStreamGuard {
 public:
  explicit CallerStreamGuard(cudaStream_t stream);
  ~CallerStreamGuard();
  CallerStreamGuard(const CallerStreamGuard&) = delete;
  CallerStreamGuard& operator=(const CallerStreamGuard&) = delete;
  CallerStreamGuard(CallerStreamGuard&&) = delete;
  CallerStreamGuard& operator=(CallerStreamGuard&&) = delete;
};

}  // namespace executorch::extension::cuda
