// register_caps.py's `log_div` / `log_rcp` edits of rel_entr and logit (2026-12-06): one log
// of the rounded ratio plus its rounding error, with a second division (div) or with x (1 / y)
// and the residual times 1 / y (rcp, now shipped in specs/xsf/convenience.toml's log_one_call).
namespace bg_v {
// log(x / y) for a normal quotient: log of the rounded quotient r plus its rounding error,
// (x - r y) / (r y) ~ fma(-r, y, x) / x.
template <typename T>
__device__ inline T log_ratio_div(T x, T y) {
    const T r = x / y;
    return log(r) + fma(-r, y, x) / x;
}
// One division: inv = 1 / y, r = x inv (within 1.5 ulp of x / y); the residual fma(-r, y, x)
// inv is the correction where r is near 1 (elsewhere log(r) >= log 2 dwarfs r's error).
template <typename T>
__device__ inline T log_ratio_rcp(bool near, T x, T y, T inv) {
    const T r = x * inv;
    const T c = fma(-r, y, x) * inv;
    return log(r) + (near ? c : T(0));
}
template <typename T> struct lim;
template <> struct lim<double> { static constexpr double min = 2.2250738585072014e-308, big = 0x1p1022; };
template <> struct lim<float> { static constexpr float min = 1.17549435e-38f, big = 0x1p126f; };

template <typename T>
__device__ inline T rel_entr_div(T x, T y) {
    if (!(x > 0 && y > 0)) {
        return x != x || y != y ? x + y : x == 0 && y >= 0 ? T(0) : std::numeric_limits<T>::infinity();
    }
    const T r = x / y;
    if (!(lim<T>::min < r && r < std::numeric_limits<T>::infinity())) return T(xsf::rel_entr(double(x), double(y)));
    return x * (log(r) + fma(-r, y, x) / x);
}
template <typename T>
__device__ inline T rel_entr_rcp(T x, T y) {
    if (!(x > 0 && y > 0)) {
        return x != x || y != y ? x + y : x == 0 && y >= 0 ? T(0) : std::numeric_limits<T>::infinity();
    }
    const bool near = T(0.5) * y < x && x < 2 * y;
    const T inv = T(1) / y;
    const T r = x * inv;
    if (!(lim<T>::min < r && r < std::numeric_limits<T>::infinity() && y <= lim<T>::big)) return T(xsf::rel_entr(double(x), double(y)));
    return x * log_ratio_rcp(near, x, y, inv);
}
// logit(p) = log(p / (1 - p)); d = 1 - p rounded, de its exact error (Fast2Sum), so
// 1 - p = d + de and the residual of r = p / (d + de) is fma(-r, d, p) - r de.
template <typename T>
__device__ inline T logit_div(T p) {
    const T d = 1 - p, de = (1 - d) - p;
    const T r = p / d;
    const bool near = !(p < T(0.3) || p > T(0.65));
    const T c = (fma(-r, d, p) - r * de) / p;
    return log(r) + (near ? c : T(0));
}
template <typename T>
__device__ inline T logit_rcp(T p) {
    const T d = 1 - p, de = (1 - d) - p;
    const T inv = T(1) / d;
    const T r = p * inv;
    const bool near = !(p < T(0.3) || p > T(0.65));
    const T c = (fma(-r, d, p) - r * de) * inv;
    return log(r) + (near ? c : T(0));
}
}  // namespace bg_v
