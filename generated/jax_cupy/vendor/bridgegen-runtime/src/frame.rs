//! Handler entry: answers XLA's metadata query, skips stages with nothing to do, turns
//! errors and panics into XLA errors (a panic must never cross `extern "C"`), and gives
//! the body safe views of the call's buffers.

use crate::ffi::*;
use std::ffi::CString;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// An error a handler returns to XLA: an absl status code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfiError {
    pub code: i32,
    pub message: String,
}

impl FfiError {
    pub fn invalid(message: impl Into<String>) -> Self {
        FfiError { code: errc::INVALID_ARGUMENT, message: message.into() }
    }
    pub fn internal(message: impl Into<String>) -> Self {
        FfiError { code: errc::INTERNAL, message: message.into() }
    }
}

/// A buffer argument or result of the current call.
#[derive(Debug, Clone, Copy)]
pub struct Buffer<'a> {
    pub dtype: i32,
    pub data: *mut u8,
    pub dims: &'a [i64],
}

impl Buffer<'_> {
    pub fn len(&self) -> i64 {
        self.dims.iter().product()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The decoded call frame of an EXECUTE call.
pub struct Call<'a> {
    pub frame: &'a XLA_FFI_CallFrame,
}

unsafe fn slice<'a, T>(ptr: *const T, len: i64) -> &'a [T] {
    if ptr.is_null() || len <= 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, len as usize)
    }
}

unsafe fn buffer<'a>(kind: i32, ptr: *mut std::ffi::c_void, what: &str, i: usize) -> Result<Buffer<'a>, FfiError> {
    if kind != BUFFER || ptr.is_null() {
        return Err(FfiError::invalid(format!("{what} {i} is not a buffer (type {kind})")));
    }
    let b = &*(ptr as *const XLA_FFI_Buffer);
    Ok(Buffer { dtype: b.dtype, data: b.data as *mut u8, dims: slice(b.dims, b.rank) })
}

impl<'a> Call<'a> {
    pub fn num_args(&self) -> usize {
        self.frame.args.size.max(0) as usize
    }
    pub fn num_rets(&self) -> usize {
        self.frame.rets.size.max(0) as usize
    }
    pub fn arg(&self, i: usize) -> Result<Buffer<'a>, FfiError> {
        let a = &self.frame.args;
        unsafe {
            let types = slice(a.types, a.size);
            let ptrs = slice(a.args, a.size);
            buffer(
                *types.get(i).ok_or_else(|| FfiError::invalid(format!("missing argument {i}")))?,
                ptrs[i],
                "argument",
                i,
            )
        }
    }
    /// The platform stream of the call (`CUstream` on CUDA), from `XLA_FFI_Stream_Get`.
    pub fn stream(&self) -> Result<*mut std::ffi::c_void, FfiError> {
        let get = self.api()?.XLA_FFI_Stream_Get.ok_or_else(|| FfiError::internal("XLA_FFI_Stream_Get is missing"))?;
        let mut args = XLA_FFI_Stream_Get_Args {
            struct_size: STREAM_GET_ARGS_SIZE,
            extension_start: std::ptr::null_mut(),
            ctx: self.frame.ctx,
            stream: std::ptr::null_mut(),
        };
        // SAFETY: args is a valid Stream_Get_Args; ctx comes from XLA's frame.
        self.check(unsafe { get(&mut args) }, "XLA_FFI_Stream_Get")?;
        Ok(args.stream)
    }

    /// The ordinal of the device running the call, from `XLA_FFI_DeviceOrdinal_Get`.
    pub fn device_ordinal(&self) -> Result<i32, FfiError> {
        let get = self
            .api()?
            .XLA_FFI_DeviceOrdinal_Get
            .ok_or_else(|| FfiError::internal("XLA_FFI_DeviceOrdinal_Get is missing"))?;
        let mut args = XLA_FFI_DeviceOrdinal_Get_Args {
            struct_size: DEVICE_ORDINAL_GET_ARGS_SIZE,
            extension_start: std::ptr::null_mut(),
            ctx: self.frame.ctx,
            device_ordinal: -1,
        };
        // SAFETY: as for stream().
        self.check(unsafe { get(&mut args) }, "XLA_FFI_DeviceOrdinal_Get")?;
        Ok(args.device_ordinal)
    }

    fn api(&self) -> Result<&XLA_FFI_Api, FfiError> {
        // SAFETY: XLA's frame points at its API table for the duration of the call.
        unsafe { self.frame.api.as_ref() }.ok_or_else(|| FfiError::internal("call frame without an API table"))
    }

    /// Turn an error XLA returned to us into ours (its message is not read: the 0.1
    /// API has no portable accessor), destroying XLA's.
    fn check(&self, err: *mut XLA_FFI_Error, what: &str) -> Result<(), FfiError> {
        if err.is_null() {
            return Ok(());
        }
        if let Some(destroy) = self.api()?.XLA_FFI_Error_Destroy {
            let mut args = XLA_FFI_Error_Destroy_Args {
                struct_size: ERROR_DESTROY_ARGS_SIZE,
                extension_start: std::ptr::null_mut(),
                error: err,
            };
            // SAFETY: err was returned by XLA and is destroyed once.
            unsafe { destroy(&mut args) };
        }
        Err(FfiError::internal(format!("{what} failed")))
    }

    /// The int64 scalar attribute `name` (keyword arguments of the lowering).
    pub fn attr_i64(&self, name: &str) -> Result<i64, FfiError> {
        let a = &self.frame.attrs;
        // SAFETY: XLA's attribute arrays hold `size` entries for the duration of the call.
        unsafe {
            let types = slice(a.types, a.size);
            let names = slice(a.names, a.size);
            let values = slice(a.attrs, a.size);
            for i in 0..types.len() {
                let n = &*names[i];
                if slice(n.ptr as *const u8, n.len as i64) != name.as_bytes() {
                    continue;
                }
                let s = values[i] as *const XLA_FFI_Scalar;
                if types[i] != ATTR_SCALAR || s.is_null() || (*s).dtype != DATA_S64 {
                    return Err(FfiError::invalid(format!("attribute {name} is not an int64 scalar")));
                }
                return Ok(*((*s).value as *const i64));
            }
        }
        Err(FfiError::invalid(format!("missing attribute {name}")))
    }

    /// Device memory from XLA's allocator (GPU only); give it back with `free`.
    pub fn allocate(&self, size: usize, alignment: usize) -> Result<*mut std::ffi::c_void, FfiError> {
        let alloc = self
            .api()?
            .XLA_FFI_DeviceMemory_Allocate
            .ok_or_else(|| FfiError::internal("XLA_FFI_DeviceMemory_Allocate is missing"))?;
        let mut args = XLA_FFI_DeviceMemory_Allocate_Args {
            struct_size: DEVICE_MEMORY_ALLOCATE_ARGS_SIZE,
            extension_start: std::ptr::null_mut(),
            ctx: self.frame.ctx,
            size,
            alignment,
            data: std::ptr::null_mut(),
        };
        // SAFETY: valid args; ctx from XLA's frame.
        self.check(unsafe { alloc(&mut args) }, "XLA_FFI_DeviceMemory_Allocate")?;
        Ok(args.data)
    }

    pub fn free(&self, data: *mut std::ffi::c_void, size: usize) -> Result<(), FfiError> {
        let free = self
            .api()?
            .XLA_FFI_DeviceMemory_Free
            .ok_or_else(|| FfiError::internal("XLA_FFI_DeviceMemory_Free is missing"))?;
        let mut args = XLA_FFI_DeviceMemory_Free_Args {
            struct_size: DEVICE_MEMORY_FREE_ARGS_SIZE,
            extension_start: std::ptr::null_mut(),
            ctx: self.frame.ctx,
            size,
            data,
        };
        // SAFETY: data came from `allocate` in this call.
        self.check(unsafe { free(&mut args) }, "XLA_FFI_DeviceMemory_Free")
    }

    pub fn ret(&self, i: usize) -> Result<Buffer<'a>, FfiError> {
        let r = &self.frame.rets;
        unsafe {
            let types = slice(r.types, r.size);
            let ptrs = slice(r.rets, r.size);
            buffer(*types.get(i).ok_or_else(|| FfiError::invalid(format!("missing result {i}")))?, ptrs[i], "result", i)
        }
    }
}

/// Walk the extension chain for the metadata query.
unsafe fn metadata_extension(frame: &XLA_FFI_CallFrame) -> Option<*mut XLA_FFI_Metadata> {
    let mut ext = frame.extension_start;
    while !ext.is_null() {
        if (*ext).type_ == EXTENSION_METADATA {
            let m = (*(ext as *mut XLA_FFI_Metadata_Extension)).metadata;
            return (!m.is_null()).then_some(m);
        }
        ext = (*ext).next;
    }
    None
}

/// Create an XLA error through the frame's API table (the CUDA plugin has its own XLA copy,
/// so the frame's table is the only right one).
unsafe fn make_error(frame: &XLA_FFI_CallFrame, err: &FfiError) -> *mut XLA_FFI_Error {
    let Some(create) = frame.api.as_ref().and_then(|api| api.XLA_FFI_Error_Create) else {
        return std::ptr::null_mut(); // no way to report; nothing better to do
    };
    let msg = CString::new(err.message.replace('\0', " ")).unwrap_or_default();
    let mut args = XLA_FFI_Error_Create_Args {
        struct_size: ERROR_CREATE_ARGS_SIZE,
        extension_start: std::ptr::null_mut(),
        message: msg.as_ptr(),
        errc: err.code,
    };
    create(&mut args)
}

/// Run a handler body for one call frame. `name` prefixes error messages; `traits` is
/// reported in the metadata handshake.
///
/// # Safety
/// `frame` must be the call frame XLA passed to the handler.
pub unsafe fn entry(
    frame: *mut XLA_FFI_CallFrame,
    name: &str,
    traits: u32,
    body: impl FnOnce(&Call) -> Result<(), FfiError>,
) -> *mut XLA_FFI_Error {
    entry_staged(frame, name, traits, |_| Ok(()), body)
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> FfiError {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into());
    FfiError::internal(format!("panic: {what}"))
}

/// Like [`entry`], with work for the INSTANTIATE stage too (run once per call site when
/// the executable is loaded, outside any graph capture; only for handlers registered
/// with an `instantiate` entry).
///
/// # Safety
/// `frame` must be the call frame XLA passed to the handler.
pub unsafe fn entry_staged(
    frame: *mut XLA_FFI_CallFrame,
    name: &str,
    traits: u32,
    instantiate: impl FnOnce(&Call) -> Result<(), FfiError>,
    execute: impl FnOnce(&Call) -> Result<(), FfiError>,
) -> *mut XLA_FFI_Error {
    let Some(frame) = frame.as_ref() else {
        return std::ptr::null_mut();
    };
    if let Some(meta) = metadata_extension(frame) {
        let (major, minor) = crate::REPORTED_API_VERSION;
        (*meta).api_version.major_version = major;
        (*meta).api_version.minor_version = minor;
        (*meta).traits = traits;
        return std::ptr::null_mut();
    }
    let result = if frame.struct_size < CALL_FRAME_MIN_SIZE {
        Err(FfiError::internal(format!(
            "call frame of {} bytes is smaller than {CALL_FRAME_MIN_SIZE}",
            frame.struct_size
        )))
    } else {
        let call = Call { frame };
        match frame.stage {
            stage::EXECUTE => {
                catch_unwind(AssertUnwindSafe(|| execute(&call))).unwrap_or_else(|p| Err(panic_message(p)))
            }
            stage::INSTANTIATE => {
                catch_unwind(AssertUnwindSafe(|| instantiate(&call))).unwrap_or_else(|p| Err(panic_message(p)))
            }
            stage::PREPARE | stage::INITIALIZE => Ok(()),
            other => Err(FfiError { code: errc::UNIMPLEMENTED, message: format!("unknown execution stage {other}") }),
        }
    };
    match result {
        Ok(()) => std::ptr::null_mut(),
        Err(e) => make_error(frame, &FfiError { code: e.code, message: format!("{name}: {}", e.message) }),
    }
}
