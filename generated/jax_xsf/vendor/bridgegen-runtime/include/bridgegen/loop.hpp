// Shared C++ side of bridgegen-generated host loops: a NumPy-style strided inner loop.
// Generated `cpu/<fn>.cpp` files call `strided_loop` with a lambda that loads the
// inputs, evaluates the xsf expression and stores the outputs for one element.
#pragma once
#include <complex>
#include <cstdint>
#include <cstring>

namespace bridgegen {

// Read a Store from memory and convert it to the type the expression computes in.
template <class Store, class Compute>
inline Compute load(const char *p) {
    Store v;
    std::memcpy(&v, p, sizeof(Store));
    return static_cast<Compute>(v);
}

template <class Store, class Value>
inline void store(char *p, const Value &v) {
    const Store s = static_cast<Store>(v);
    std::memcpy(p, &s, sizeof(Store));
}

template <int N, class Body>
inline void run_strided(char *const *args, std::int64_t n, const std::int64_t *steps, Body &body) {
    char *p[N];
    for (int k = 0; k < N; ++k) p[k] = args[k];
    for (std::int64_t i = 0; i < n; ++i) {
        body(p);
        for (int k = 0; k < N; ++k) p[k] += steps[k];
    }
}

// args: N operand pointers; dims[0]: element count; steps: N byte strides. `Sizes` are
// the element sizes: when every operand is contiguous, the strides become compile-time
// constants, which is the common case and lets the compiler keep pointers in registers.
template <int N, std::int64_t... Sizes, class Body>
inline void strided_loop(char *const *args, const std::int64_t *dims, const std::int64_t *steps, Body body) {
    static_assert(sizeof...(Sizes) == N, "one element size per operand");
    constexpr std::int64_t sizes[N] = {Sizes...};
    bool contiguous = true;
    for (int k = 0; k < N; ++k) contiguous &= steps[k] == sizes[k];
    if (contiguous) {
        run_strided<N>(args, dims[0], sizes, body);
    } else {
        run_strided<N>(args, dims[0], steps, body);
    }
}

}  // namespace bridgegen
