// Between this header and out_of_line_end.cuh, xsf headers are read with every function
// `__noinline__` on the device (XSF_HOST_DEVICE, which xsf puts on each of them), as cupyx
// declares its Cephes ports: NVRTC otherwise inlines all of xsf, and the iterative inverses'
// kernels carried megabytes of code and hundreds of bytes of stack a thread
// (docs/gpu.md, "Device ports and seams"). Include the headers' own dependencies first, so
// that only the named headers are read here. No include guard: each use is one pair.
#pragma push_macro("XSF_HOST_DEVICE")
#undef XSF_HOST_DEVICE
#define XSF_HOST_DEVICE __host__ __device__ __noinline__
