// The XLA FFI C API layout this runtime relies on (x86_64), the single source of truth
// for both checks: `src/ffi.rs` asserts the Rust mirror against it at compile time, and
// `build.rs` turns it into C static asserts compiled against the local `c_api.h`, so a
// jaxlib whose header differs fails the build naming the struct and field.
// `=` asserts the exact size (structs we build), `>=` a minimum (structs XLA builds
// and may extend). Fields named `x_` are `x` in C (Rust keywords).
// Each includer defines `bridgegen_layout!` before including this file.
bridgegen_layout! {
    XLA_FFI_Extension_Base = 24 { struct_size: 0, type_: 8, next: 16 }
    XLA_FFI_Api_Version = 24 { struct_size: 0, extension_start: 8, major_version: 16, minor_version: 20 }
    XLA_FFI_Error_Create_Args = 32 { struct_size: 0, extension_start: 8, message: 16, errc: 24 }
    XLA_FFI_Error_Destroy_Args = 24 { struct_size: 0, extension_start: 8, error: 16 }
    XLA_FFI_Stream_Get_Args = 32 { struct_size: 0, extension_start: 8, ctx: 16, stream: 24 }
    XLA_FFI_DeviceOrdinal_Get_Args = 32 { struct_size: 0, extension_start: 8, ctx: 16, device_ordinal: 24 }
    XLA_FFI_DeviceMemory_Allocate_Args = 48 { struct_size: 0, extension_start: 8, ctx: 16, size: 24, alignment: 32, data: 40 }
    XLA_FFI_DeviceMemory_Free_Args = 40 { struct_size: 0, extension_start: 8, ctx: 16, size: 24, data: 32 }
    XLA_FFI_Buffer = 48 { struct_size: 0, extension_start: 8, dtype: 16, data: 24, rank: 32, dims: 40 }
    XLA_FFI_Args = 40 { struct_size: 0, extension_start: 8, size: 16, types: 24, args: 32 }
    XLA_FFI_Rets = 40 { struct_size: 0, extension_start: 8, size: 16, types: 24, rets: 32 }
    XLA_FFI_Attrs = 48 { struct_size: 0, extension_start: 8, size: 16, types: 24, names: 32, attrs: 40 }
    XLA_FFI_CallFrame >= 176 { struct_size: 0, extension_start: 8, api: 16, ctx: 24, stage: 32, args: 40, rets: 80, attrs: 120, future: 168 }
    XLA_FFI_Metadata >= 40 { struct_size: 0, api_version: 8, traits: 32 }
    XLA_FFI_Metadata_Extension = 32 { extension_base: 0, metadata: 24 }
    XLA_FFI_ByteSpan = 16 { ptr: 0, len: 8 }
    XLA_FFI_Scalar = 16 { dtype: 0, value: 8 }
    XLA_FFI_Array = 24 { dtype: 0, size: 8, data: 16 }
    XLA_FFI_Api >= 192 {
        struct_size: 0, extension_start: 8, api_version: 16, internal_api: 40,
        XLA_FFI_Error_Create: 48, XLA_FFI_Error_Destroy: 64, XLA_FFI_Stream_Get: 80,
        XLA_FFI_DeviceMemory_Allocate: 120, XLA_FFI_DeviceMemory_Free: 128, XLA_FFI_DeviceOrdinal_Get: 184
    }
}
