// Our own declarations of the CUDA driver API subset the probe calls, from
// cuda.h's documented signatures (CUDA 12.x; each has been stable since
// CUDA 4.0 or earlier). Never linked: the library is dlopened and each
// symbol looked up by the name the real libcuda.so.1 exports (the _v2
// names; tests/nvidia/real_libcuda.sh checks them against NVIDIA's
// libcuda1 535 and 550). The mock libcuda (tests/mock_nvml/mock_cuda.cc)
// implements the same declarations.
#pragma once

#include <cstddef>

extern "C" {

typedef int CUresult;  // enum cudaError_enum: 0 is CUDA_SUCCESS
typedef int CUdevice;  // an ordinal, in CUDA's order (not NVML's)
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;

// One X-macro list: return type is CUresult for every entry.
//   X(field, exported symbol, (parameters))
#define GT_CUDA_FUNCTIONS(X)                                                           \
  X(cuGetErrorName, "cuGetErrorName", (CUresult, const char**))                        \
  X(cuGetErrorString, "cuGetErrorString", (CUresult, const char**))                    \
  X(cuDriverGetVersion, "cuDriverGetVersion", (int*))                                  \
  X(cuInit, "cuInit", (unsigned int))                                                  \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int*))                                      \
  X(cuDeviceGetByPCIBusId, "cuDeviceGetByPCIBusId", (CUdevice*, const char*))          \
  X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", (char*, int, CUdevice))                \
  X(cuDeviceGetName, "cuDeviceGetName", (char*, int, CUdevice))                        \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t*, CUdevice))                      \
  X(cuCtxCreate, "cuCtxCreate_v2", (CUcontext*, unsigned int, CUdevice))               \
  X(cuCtxDestroy, "cuCtxDestroy_v2", (CUcontext))                                      \
  X(cuCtxSynchronize, "cuCtxSynchronize", ())                                          \
  X(cuMemGetInfo, "cuMemGetInfo_v2", (size_t*, size_t*))                               \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr*, size_t))                               \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                          \
  X(cuMemAllocHost, "cuMemAllocHost_v2", (void**, size_t))                             \
  X(cuMemFreeHost, "cuMemFreeHost", (void*))                                           \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void*, size_t))               \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void*, CUdeviceptr, size_t))                     \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule*, const void*))                    \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction*, CUmodule, const char*))  \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                      \
  X(cuLaunchKernel, "cuLaunchKernel",                                                  \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, \
     unsigned int, unsigned int, CUstream, void**, void**))                            \
  X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", (int*, CUdevice, CUdevice))

}  // extern "C"
