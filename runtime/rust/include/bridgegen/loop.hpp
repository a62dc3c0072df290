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

// args: N operand pointers; dims[0]: element count; steps: N byte strides.
template <int N, class Body>
inline void strided_loop(char *const *args, const std::int64_t *dims, const std::int64_t *steps, Body body) {
    char *p[N];
    for (int k = 0; k < N; ++k) p[k] = args[k];
    const std::int64_t n = dims[0];
    for (std::int64_t i = 0; i < n; ++i) {
        body(p);
        for (int k = 0; k < N; ++k) p[k] += steps[k];
    }
}

}  // namespace bridgegen
