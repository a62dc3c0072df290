// Shared device side of bridgegen-generated CUDA kernels, compiled by NVRTC (no host
// headers). Generated `cuda/<fn>.cu` files define one `extern "C" __global__` kernel per
// type loop; each walks the output's elements with a grid-stride loop and finds its
// inputs through `Geometry`, which the Rust runtime fills (`geometry` in
// runtime/rust/src/cuda/mod.rs): NumPy broadcasting as element strides (0 on broadcast
// axes) over the merged output shape.
#pragma once

namespace bridgegen {

constexpr int kMaxDims = 8;
// Most output elements one elementwise launch covers (runtime/abi.toml's
// cuda_launch_max_elements): elementwise kernels index in 32 bits, and the runtime splits
// larger outputs into launches of at most this many, each with its own base pointers. An
// index plus the grid's thread count then stays below 2^32. 64-bit index arithmetic cost
// memory-bound kernels 5-15 % against cupyx's (bench/kernel_variants.py, H100, 2026-12-06).
constexpr long long kMaxLaunchElements = 2147483647;

// Must match `Geometry<N>` in geometry.rs field for field (all 64-bit: no padding).
template <int N>
struct Geometry {
    long long n;                     // output elements
    long long ndim;                  // merged dimensions, 1..kMaxDims
    long long shape[kMaxDims];       // merged output shape (row-major)
    long long strides[N][kMaxDims];  // input strides in elements; 0 on broadcast axes
};

// Element offsets of the N inputs for output element i.
template <int N>
__device__ __forceinline__ void input_offsets(const Geometry<N> &g, long long i, long long (&off)[N]) {
    if (g.ndim == 1) {  // the common case: same-shape or scalar operands
        for (int k = 0; k < N; ++k) off[k] = i * g.strides[k][0];
        return;
    }
    for (int k = 0; k < N; ++k) off[k] = 0;
    long long rest = i;
    for (int d = static_cast<int>(g.ndim) - 1; d >= 0; --d) {
        const long long idx = rest % g.shape[d];
        rest /= g.shape[d];
        for (int k = 0; k < N; ++k) off[k] += idx * g.strides[k][d];
    }
}

// The same for an elementwise launch (n <= kMaxLaunchElements, so every offset fits).
template <int N>
__device__ __forceinline__ void input_offsets(const Geometry<N> &g, unsigned i, unsigned (&off)[N]) {
    if (g.ndim == 1) {
        for (int k = 0; k < N; ++k) off[k] = i * static_cast<unsigned>(g.strides[k][0]);
        return;
    }
    for (int k = 0; k < N; ++k) off[k] = 0;
    unsigned rest = i;
    for (int d = static_cast<int>(g.ndim) - 1; d >= 0; --d) {
        const unsigned extent = static_cast<unsigned>(g.shape[d]);
        const unsigned idx = rest % extent;
        rest /= extent;
        for (int k = 0; k < N; ++k) off[k] += idx * static_cast<unsigned>(g.strides[k][d]);
    }
}

}  // namespace bridgegen

// Grid-stride loop over the output elements, 64-bit indices (generalized ufuncs: one
// launch, outputs past 2^31 elements).
#define BRIDGEGEN_FOR_EACH(geom, i)                                                   \
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; \
         i < (geom).n; i += static_cast<long long>(gridDim.x) * blockDim.x)

// Grid-stride loop over one elementwise launch's elements, 32-bit indices.
#define BRIDGEGEN_FOR_EACH32(geom, i)                                                     \
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < static_cast<unsigned>((geom).n); \
         i += gridDim.x * blockDim.x)
