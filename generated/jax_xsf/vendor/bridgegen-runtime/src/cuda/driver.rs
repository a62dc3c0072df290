#![allow(non_snake_case)]
//! The CUDA driver API, loaded at run time from `libcuda.so.1`: no link-time CUDA
//! dependency, so one library serves every driver and loads on machines without one.

use crate::frame::FfiError;
use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

pub type CUresult = c_int;
pub type CUdevice = c_int;
pub type CUcontext = *mut c_void;
pub type CUmodule = *mut c_void;
pub type CUfunction = *mut c_void;
pub type CUstream = *mut c_void;
pub type CUgraph = *mut c_void;
pub type CUgraphExec = *mut c_void;

pub const CUDA_SUCCESS: CUresult = 0;
pub const ATTR_MULTIPROCESSOR_COUNT: c_int = 16;
pub const ATTR_COMPUTE_CAPABILITY_MAJOR: c_int = 75;
pub const ATTR_COMPUTE_CAPABILITY_MINOR: c_int = 76;
pub const FUNC_ATTR_MAX_THREADS_PER_BLOCK: c_int = 0;
pub const FUNC_ATTR_LOCAL_SIZE_BYTES: c_int = 3;
pub const FUNC_ATTR_NUM_REGS: c_int = 4;
pub const STREAM_CAPTURE_STATUS_NONE: c_int = 0;
pub const LIMIT_STACK_SIZE: c_int = 0;
/// `CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`: only this thread's unsafe calls end a capture.
pub const STREAM_CAPTURE_MODE_THREAD_LOCAL: c_int = 1;
/// `CU_STREAM_NON_BLOCKING`: no implicit synchronisation with the legacy default stream.
pub const STREAM_NON_BLOCKING: c_uint = 1;

/// The driver entry points bridgegen uses.
pub struct Driver {
    _lib: Library,
    pub cuGetErrorName: unsafe extern "C" fn(CUresult, *mut *const c_char) -> CUresult,
    pub cuDeviceGet: unsafe extern "C" fn(*mut CUdevice, c_int) -> CUresult,
    pub cuDeviceGetCount: unsafe extern "C" fn(*mut c_int) -> CUresult,
    pub cuDeviceGetAttribute: unsafe extern "C" fn(*mut c_int, c_int, CUdevice) -> CUresult,
    pub cuDevicePrimaryCtxGetState: unsafe extern "C" fn(CUdevice, *mut c_uint, *mut c_int) -> CUresult,
    pub cuDevicePrimaryCtxRetain: unsafe extern "C" fn(*mut CUcontext, CUdevice) -> CUresult,
    pub cuCtxGetCurrent: unsafe extern "C" fn(*mut CUcontext) -> CUresult,
    pub cuCtxPushCurrent: unsafe extern "C" fn(CUcontext) -> CUresult,
    pub cuCtxPopCurrent: unsafe extern "C" fn(*mut CUcontext) -> CUresult,
    pub cuModuleLoadData: unsafe extern "C" fn(*mut CUmodule, *const c_void) -> CUresult,
    pub cuModuleGetFunction: unsafe extern "C" fn(*mut CUfunction, CUmodule, *const c_char) -> CUresult,
    pub cuFuncGetAttribute: unsafe extern "C" fn(*mut c_int, c_int, CUfunction) -> CUresult,
    pub cuStreamIsCapturing: unsafe extern "C" fn(CUstream, *mut c_int) -> CUresult,
    pub cuMemsetD8Async: unsafe extern "C" fn(u64, u8, usize, CUstream) -> CUresult,
    pub cuStreamCreate: unsafe extern "C" fn(*mut CUstream, c_uint) -> CUresult,
    pub cuStreamBeginCapture: unsafe extern "C" fn(CUstream, c_int) -> CUresult,
    pub cuStreamEndCapture: unsafe extern "C" fn(CUstream, *mut CUgraph) -> CUresult,
    pub cuGraphInstantiateWithFlags: unsafe extern "C" fn(*mut CUgraphExec, CUgraph, u64) -> CUresult,
    pub cuGraphLaunch: unsafe extern "C" fn(CUgraphExec, CUstream) -> CUresult,
    pub cuGraphDestroy: unsafe extern "C" fn(CUgraph) -> CUresult,
    pub cuGraphExecDestroy: unsafe extern "C" fn(CUgraphExec) -> CUresult,
    pub cuCtxGetLimit: unsafe extern "C" fn(*mut usize, c_int) -> CUresult,
    pub cuCtxSetLimit: unsafe extern "C" fn(c_int, usize) -> CUresult,
    #[allow(clippy::type_complexity)]
    pub cuLaunchKernel: unsafe extern "C" fn(
        CUfunction,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        CUstream,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CUresult,
}

// SAFETY: the driver API is thread-safe; the struct holds plain function pointers.
unsafe impl Send for Driver {}
unsafe impl Sync for Driver {}

impl Driver {
    fn open() -> Result<Driver, String> {
        // SAFETY: loading the CUDA driver runs no initialisers with preconditions.
        let lib = unsafe { Library::new("libcuda.so.1") }
            .map_err(|e| format!("cannot load the CUDA driver libcuda.so.1: {e}"))?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol has the C signature of the field it is stored in.
                *unsafe { lib.get($name) }.map_err(|e| format!("libcuda.so.1: {e}"))?
            };
        }
        let init: unsafe extern "C" fn(c_uint) -> CUresult = sym!(b"cuInit\0");
        let d = Driver {
            cuGetErrorName: sym!(b"cuGetErrorName\0"),
            cuDeviceGet: sym!(b"cuDeviceGet\0"),
            cuDeviceGetCount: sym!(b"cuDeviceGetCount\0"),
            cuDeviceGetAttribute: sym!(b"cuDeviceGetAttribute\0"),
            cuDevicePrimaryCtxGetState: sym!(b"cuDevicePrimaryCtxGetState\0"),
            cuDevicePrimaryCtxRetain: sym!(b"cuDevicePrimaryCtxRetain\0"),
            cuCtxGetCurrent: sym!(b"cuCtxGetCurrent\0"),
            cuCtxPushCurrent: sym!(b"cuCtxPushCurrent_v2\0"),
            cuCtxPopCurrent: sym!(b"cuCtxPopCurrent_v2\0"),
            cuModuleLoadData: sym!(b"cuModuleLoadData\0"),
            cuModuleGetFunction: sym!(b"cuModuleGetFunction\0"),
            cuFuncGetAttribute: sym!(b"cuFuncGetAttribute\0"),
            cuStreamIsCapturing: sym!(b"cuStreamIsCapturing\0"),
            cuMemsetD8Async: sym!(b"cuMemsetD8Async\0"),
            cuStreamCreate: sym!(b"cuStreamCreate\0"),
            cuStreamBeginCapture: sym!(b"cuStreamBeginCapture_v2\0"),
            cuStreamEndCapture: sym!(b"cuStreamEndCapture\0"),
            cuGraphInstantiateWithFlags: sym!(b"cuGraphInstantiateWithFlags\0"),
            cuGraphLaunch: sym!(b"cuGraphLaunch\0"),
            cuGraphDestroy: sym!(b"cuGraphDestroy\0"),
            cuGraphExecDestroy: sym!(b"cuGraphExecDestroy\0"),
            cuCtxGetLimit: sym!(b"cuCtxGetLimit\0"),
            cuCtxSetLimit: sym!(b"cuCtxSetLimit\0"),
            cuLaunchKernel: sym!(b"cuLaunchKernel\0"),
            _lib: lib,
        };
        // SAFETY: cuInit may be called any number of times.
        let rc = unsafe { init(0) };
        if rc != CUDA_SUCCESS {
            return Err(format!("cuInit failed: {}", d.error_name(rc)));
        }
        Ok(d)
    }

    /// The process-wide driver, loaded on first use.
    pub fn get() -> Result<&'static Driver, FfiError> {
        static DRIVER: OnceLock<Result<Driver, String>> = OnceLock::new();
        DRIVER.get_or_init(Driver::open).as_ref().map_err(|e| FfiError::internal(e.clone()))
    }

    /// `CUDA_ERROR_...` name of a result code.
    pub fn error_name(&self, rc: CUresult) -> String {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorName writes a pointer to a static string or fails.
        if unsafe { (self.cuGetErrorName)(rc, &mut p) } == CUDA_SUCCESS && !p.is_null() {
            // SAFETY: the driver returns a NUL-terminated static string.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        } else {
            format!("CUDA error {rc}")
        }
    }

    /// Ok, or an error naming the call and the CUDA error.
    pub fn check(&self, rc: CUresult, what: &str) -> Result<(), FfiError> {
        if rc == CUDA_SUCCESS {
            Ok(())
        } else {
            Err(FfiError::internal(format!("{what} failed: {}", self.error_name(rc))))
        }
    }
}
