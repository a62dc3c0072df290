//! What every elementwise handler does before it runs anything, on any platform: count
//! and decode the operands, pick the type loop matching their dtypes, and check that the
//! outputs share one shape.

use crate::abi::{xla_name, DType};
use crate::frame::{Buffer, Call, FfiError};

fn signature(types: impl Iterator<Item = i32>, nin: usize) -> String {
    let names: Vec<String> = types.map(xla_name).collect();
    format!("({}) -> ({})", names[..nin.min(names.len())].join(", "), names[nin.min(names.len())..].join(", "))
}

/// Inputs then outputs of the call, after checking their number.
pub fn operands<'a>(call: &Call<'a>, nin: usize, nout: usize) -> Result<Vec<Buffer<'a>>, FfiError> {
    if call.num_args() != nin || call.num_rets() != nout {
        return Err(FfiError::invalid(format!(
            "expected {nin} inputs and {nout} outputs, got {} and {}",
            call.num_args(),
            call.num_rets()
        )));
    }
    let mut bufs = Vec::with_capacity(nin + nout);
    for i in 0..nin {
        bufs.push(call.arg(i)?);
    }
    for i in 0..nout {
        bufs.push(call.ret(i)?);
    }
    Ok(bufs)
}

/// The index of the loop whose types (inputs then outputs) equal the operands' dtypes.
pub fn find_loop<L>(
    loops: &[L],
    types: impl Fn(&L) -> &[DType],
    bufs: &[Buffer],
    nin: usize,
) -> Result<usize, FfiError> {
    let have = || bufs.iter().map(|b| b.dtype);
    loops.iter().position(|l| types(l).iter().map(|t| t.code()).eq(have())).ok_or_else(|| {
        let known: Vec<String> = loops.iter().map(|l| signature(types(l).iter().map(|t| t.code()), nin)).collect();
        FfiError::invalid(format!("no loop for {}; loops: {}", signature(have(), nin), known.join(", ")))
    })
}

/// The common shape of the outputs.
pub fn output_shape(bufs: &[Buffer], nin: usize) -> Result<Vec<i64>, FfiError> {
    let shape = bufs[nin].dims.to_vec();
    for (i, b) in bufs[nin..].iter().enumerate() {
        if b.dims != shape.as_slice() {
            return Err(FfiError::invalid(format!("output {i} has shape {:?}, output 0 has {:?}", b.dims, shape)));
        }
    }
    Ok(shape)
}

/// Testing aid: with `BRIDGEGEN_POISON_OUTPUTS=1` every handler fills its outputs with
/// 0xFF bytes (NaN for floats) before computing, so an element a kernel fails to write
/// shows up as NaN instead of as a stale correct value.
pub fn poison_outputs() -> bool {
    static POISON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *POISON.get_or_init(|| std::env::var("BRIDGEGEN_POISON_OUTPUTS").is_ok_and(|v| v == "1"))
}

/// Whether an output may be poisoned: not when XLA gave it an input's buffer (the call
/// was lowered with `overwrite_input=True`), whose values the kernel has yet to read.
pub fn may_poison(bufs: &[Buffer], nin: usize, out: &Buffer) -> bool {
    !bufs[..nin].iter().any(|b| b.data == out.data)
}
