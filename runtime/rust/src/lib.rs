//! bridgegen-runtime: everything generated handler crates share, so generated code stays
//! a table of loops and one-line `extern "C"` entry points.
//!
//! - `ffi`: the XLA FFI C API mirror, layout-checked against the local `c_api.h`;
//! - `frame`: the handler entry (metadata handshake, stages, panics -> XLA errors) and
//!   safe views of arguments and results;
//! - `cpu`: NumPy-style broadcasting elementwise execution over XLA's row-major buffers,
//!   split over a thread pool for large arrays;
//! - `cuda`: the same on CUDA, NVRTC-compiled kernels launched on XLA's stream through
//!   the driver API loaded at run time, and graph replay of graph-safe delegated calls;
//! - `broadcast`, `elementwise`: operand checks and broadcasting shared by both;
//! - `gufunc`: core dimensions of generalized ufuncs (outer axes broadcast, core axes whole);
//! - `callback`: handlers that delegate to Python callables (`cupy_lazy_apply`), or replay
//!   what a graph-safe one captured (`cuda::replay`);
//! - `exports`: symbols the Python side reads (FFI API versions, the ABI's layout);
//! - `abi`: the ABI shared with the generator and the Python runtime, rendered from
//!   runtime/abi.toml (types, limits, the delegation structs).

pub mod abi;
pub mod broadcast;
pub mod callback;
pub mod cpu;
pub mod cuda;
pub mod elementwise;
pub mod exports;
pub mod ffi;
pub mod frame;
pub mod gufunc;

pub use abi::{DType, REPORTED_API_VERSION};
