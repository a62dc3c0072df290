//! Rust mirror of the parts of XLA's FFI C API (`xla/ffi/api/c_api.h`) that handlers use.
//! Layouts are asserted at compile time against `layout.rs`, which `build.rs` also
//! checks against the local header. Enum-like C ints stay plain integers: newer XLA
//! versions add values, and an unknown value must be an error, not undefined behaviour.
#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::{c_char, c_int, c_void};

/// Opaque XLA error handle.
#[repr(C)]
pub struct XLA_FFI_Error {
    _private: [u8; 0],
}

/// Opaque execution context.
#[repr(C)]
pub struct XLA_FFI_ExecutionContext {
    _private: [u8; 0],
}

#[repr(C)]
pub struct XLA_FFI_Extension_Base {
    pub struct_size: usize,
    pub type_: c_int,
    pub next: *mut XLA_FFI_Extension_Base,
}

#[repr(C)]
pub struct XLA_FFI_Api_Version {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub major_version: c_int,
    pub minor_version: c_int,
}

#[repr(C)]
pub struct XLA_FFI_Error_Create_Args {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub message: *const c_char,
    pub errc: c_int,
}

#[repr(C)]
pub struct XLA_FFI_Error_Destroy_Args {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub error: *mut XLA_FFI_Error,
}

#[repr(C)]
pub struct XLA_FFI_Stream_Get_Args {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub ctx: *mut XLA_FFI_ExecutionContext,
    pub stream: *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_DeviceOrdinal_Get_Args {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub ctx: *mut XLA_FFI_ExecutionContext,
    pub device_ordinal: i32,
}

#[repr(C)]
pub struct XLA_FFI_DeviceMemory_Allocate_Args {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub ctx: *mut XLA_FFI_ExecutionContext,
    pub size: usize,
    pub alignment: usize,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_DeviceMemory_Free_Args {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub ctx: *mut XLA_FFI_ExecutionContext,
    pub size: usize,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_Buffer {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub dtype: c_int,
    pub data: *mut c_void,
    pub rank: i64,
    pub dims: *mut i64,
}

#[repr(C)]
pub struct XLA_FFI_Args {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub size: i64,
    pub types: *mut c_int,
    pub args: *mut *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_Rets {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub size: i64,
    pub types: *mut c_int,
    pub rets: *mut *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_ByteSpan {
    pub ptr: *const c_char,
    pub len: usize,
}

#[repr(C)]
pub struct XLA_FFI_Scalar {
    pub dtype: c_int,
    pub value: *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_Array {
    pub dtype: c_int,
    pub size: usize,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_Attrs {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub size: i64,
    pub types: *mut c_int,
    pub names: *mut *mut XLA_FFI_ByteSpan,
    pub attrs: *mut *mut c_void,
}

#[repr(C)]
pub struct XLA_FFI_CallFrame {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub api: *const XLA_FFI_Api,
    pub ctx: *mut XLA_FFI_ExecutionContext,
    pub stage: c_int,
    pub args: XLA_FFI_Args,
    pub rets: XLA_FFI_Rets,
    pub attrs: XLA_FFI_Attrs,
    pub future: *mut c_void,
}

/// Only the fields up to `traits` (API 0.1): `state_type_id` exists from jaxlib 0.8.0.
#[repr(C)]
pub struct XLA_FFI_Metadata {
    pub struct_size: usize,
    pub api_version: XLA_FFI_Api_Version,
    pub traits: u32,
}

#[repr(C)]
pub struct XLA_FFI_Metadata_Extension {
    pub extension_base: XLA_FFI_Extension_Base,
    pub metadata: *mut XLA_FFI_Metadata,
}

pub type ErrorCreateFn = unsafe extern "C" fn(*mut XLA_FFI_Error_Create_Args) -> *mut XLA_FFI_Error;
pub type ErrorDestroyFn = unsafe extern "C" fn(*mut XLA_FFI_Error_Destroy_Args);
pub type StreamGetFn = unsafe extern "C" fn(*mut XLA_FFI_Stream_Get_Args) -> *mut XLA_FFI_Error;
pub type DeviceOrdinalGetFn = unsafe extern "C" fn(*mut XLA_FFI_DeviceOrdinal_Get_Args) -> *mut XLA_FFI_Error;
pub type DeviceMemoryAllocateFn = unsafe extern "C" fn(*mut XLA_FFI_DeviceMemory_Allocate_Args) -> *mut XLA_FFI_Error;
pub type DeviceMemoryFreeFn = unsafe extern "C" fn(*mut XLA_FFI_DeviceMemory_Free_Args) -> *mut XLA_FFI_Error;
type AnyFn = Option<unsafe extern "C" fn()>;

/// The API table of FFI version 0.1 (jaxlib 0.7.2); later versions append slots.
#[repr(C)]
pub struct XLA_FFI_Api {
    pub struct_size: usize,
    pub extension_start: *mut XLA_FFI_Extension_Base,
    pub api_version: XLA_FFI_Api_Version,
    pub internal_api: *const c_void,
    pub XLA_FFI_Error_Create: Option<ErrorCreateFn>,
    pub XLA_FFI_Error_GetMessage: AnyFn,
    pub XLA_FFI_Error_Destroy: Option<ErrorDestroyFn>,
    pub XLA_FFI_Handler_Register: AnyFn,
    pub XLA_FFI_Stream_Get: Option<StreamGetFn>,
    pub XLA_FFI_Type_Register: AnyFn,
    pub XLA_FFI_ExecutionContext_Get: AnyFn,
    pub XLA_FFI_State_Set: AnyFn,
    pub XLA_FFI_State_Get: AnyFn,
    pub XLA_FFI_DeviceMemory_Allocate: Option<DeviceMemoryAllocateFn>,
    pub XLA_FFI_DeviceMemory_Free: Option<DeviceMemoryFreeFn>,
    pub XLA_FFI_ThreadPool_Schedule: AnyFn,
    pub XLA_FFI_ThreadPool_NumThreads: AnyFn,
    pub XLA_FFI_Future_Create: AnyFn,
    pub XLA_FFI_Future_SetAvailable: AnyFn,
    pub XLA_FFI_Future_SetError: AnyFn,
    pub XLA_FFI_RunId_Get: AnyFn,
    pub XLA_FFI_DeviceOrdinal_Get: Option<DeviceOrdinalGetFn>,
}

/// `XLA_FFI_STRUCT_SIZE`: offset of the last field plus its size (no tail padding).
pub const ERROR_CREATE_ARGS_SIZE: usize = 28;
pub const ERROR_DESTROY_ARGS_SIZE: usize = 24;
pub const STREAM_GET_ARGS_SIZE: usize = 32;
pub const DEVICE_MEMORY_ALLOCATE_ARGS_SIZE: usize = 48;
pub const DEVICE_MEMORY_FREE_ARGS_SIZE: usize = 40;
pub const DEVICE_ORDINAL_GET_ARGS_SIZE: usize = 28;
/// The smallest call frame a runtime may hand us (C++ binding checks == 168).
pub const CALL_FRAME_MIN_SIZE: usize = 168;

/// `XLA_FFI_ExecutionStage`.
pub mod stage {
    pub const INSTANTIATE: i32 = 0;
    pub const PREPARE: i32 = 1;
    pub const INITIALIZE: i32 = 2;
    pub const EXECUTE: i32 = 3;
}

/// `XLA_FFI_AttrType`.
pub const ATTR_SCALAR: i32 = 3;
/// `XLA_FFI_DataType` of 64-bit signed integers.
pub const DATA_S64: i32 = 5;

/// `XLA_FFI_ArgType` / `XLA_FFI_RetType`.
pub const BUFFER: i32 = 1;
/// `XLA_FFI_Extension_Type` of the metadata extension.
pub const EXTENSION_METADATA: i32 = 1;
/// `XLA_FFI_Handler_TraitsBits`.
pub const COMMAND_BUFFER_COMPATIBLE: u32 = 1;

/// `XLA_FFI_Error_Code` (absl status codes).
pub mod errc {
    pub const INVALID_ARGUMENT: i32 = 3;
    pub const FAILED_PRECONDITION: i32 = 9;
    pub const UNIMPLEMENTED: i32 = 12;
    pub const INTERNAL: i32 = 13;
}

macro_rules! bridgegen_layout {
    ($($s:ident $op:tt $size:literal { $($f:ident: $off:literal),* $(,)? })*) => {
        $(
            $(const _: () = assert!(std::mem::offset_of!($s, $f) == $off, concat!("layout.rs: ", stringify!($s), ".", stringify!($f)));)*
            const _: () = assert!(bridgegen_layout!(@cmp $op std::mem::size_of::<$s>(), $size), concat!("layout.rs: sizeof ", stringify!($s)));
        )*
    };
    (@cmp = $a:expr, $b:expr) => { $a == $b };
    (@cmp >= $a:expr, $b:expr) => { $a >= $b };
}
include!("../layout.rs");
