//! C symbols every generated library exports, read by the Python runtime with ctypes.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

extern "C" {
    static bridgegen_header_api_major: std::ffi::c_int;
    static bridgegen_header_api_minor: std::ffi::c_int;
}

/// FFI API version of the `c_api.h` this library was compiled against, as major*1000+minor.
#[no_mangle]
pub extern "C" fn bg_header_ffi_api_version() -> i32 {
    unsafe { bridgegen_header_api_major * 1000 + bridgegen_header_api_minor }
}

/// FFI API version the handlers report to XLA, as major*1000+minor.
#[no_mangle]
pub extern "C" fn bg_reported_ffi_api_version() -> i32 {
    let (major, minor) = crate::REPORTED_API_VERSION;
    major * 1000 + minor
}

/// The delegation structs' sizes and field offsets as JSON (NUL-terminated, static), for
/// the Python runtime's layout test.
#[no_mangle]
pub extern "C" fn bg_abi_layout() -> *const c_char {
    static LAYOUT: OnceLock<CString> = OnceLock::new();
    LAYOUT.get_or_init(|| CString::new(crate::abi::layout_json()).expect("no NUL in JSON")).as_ptr()
}
