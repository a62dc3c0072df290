//! C symbols every generated library exports, read by the Python runtime with ctypes.

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
