//! XLA FFI data types (`XLA_FFI_DataType`) the runtime handles.

/// Element types of buffers a generated handler accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    S32,
    S64,
    F32,
    F64,
    C64,
    C128,
}

impl DType {
    /// The `XLA_FFI_DataType` value.
    pub const fn code(self) -> i32 {
        match self {
            DType::S32 => 4,
            DType::S64 => 5,
            DType::F32 => 11,
            DType::F64 => 12,
            DType::C64 => 15,
            DType::C128 => 18,
        }
    }

    pub const fn size(self) -> usize {
        match self {
            DType::S32 | DType::F32 => 4,
            DType::S64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::S32 => "int32",
            DType::S64 => "int64",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }
}

/// A readable name for any `XLA_FFI_DataType` value, for error messages.
pub fn xla_name(code: i32) -> String {
    let known = [
        (1, "bool"), (2, "int8"), (3, "int16"), (4, "int32"), (5, "int64"), (6, "uint8"),
        (7, "uint16"), (8, "uint32"), (9, "uint64"), (10, "float16"), (11, "float32"),
        (12, "float64"), (15, "complex64"), (16, "bfloat16"), (18, "complex128"),
    ];
    known
        .iter()
        .find(|(c, _)| *c == code)
        .map_or_else(|| format!("XLA data type {code}"), |(_, n)| (*n).to_string())
}
