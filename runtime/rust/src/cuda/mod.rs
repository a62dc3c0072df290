//! Elementwise execution on CUDA: the handler finds the type loop, reads XLA's stream and
//! device ordinal from the call frame, and launches the loop's NVRTC-compiled kernel on
//! that stream through the driver API. Nothing is compiled, loaded, allocated or
//! synchronised during a call, so handlers are safe under XLA's command buffers (CUDA
//! graphs): modules are loaded at the INSTANTIATE stage, when XLA loads the executable.

pub mod driver;
pub mod module;
pub mod replay;

use crate::abi::DType;
use crate::broadcast::Broadcast;
use crate::elementwise;
use crate::ffi::{XLA_FFI_CallFrame, XLA_FFI_Error, COMMAND_BUFFER_COMPATIBLE};
use crate::frame::{entry_staged, Call, FfiError};
use crate::gufunc::Signature;
use driver::*;
use module::{ContextGuard, Loaded, Module};
use std::ffi::c_void;

pub use module::{Image, ImageKind};

/// A generated ufunc on CUDA: its loops' types (in the module's kernel order) and module.
pub struct Ufunc {
    pub name: &'static str,
    pub nin: usize,
    pub nout: usize,
    pub loops: &'static [&'static [DType]],
    /// Core dimensions, for a generalized ufunc.
    pub core: Option<&'static Signature>,
    pub module: Module,
}

pub use crate::abi::{MAX_CUDA_DIMS as MAX_DIMS, MAX_CUDA_INPUTS as MAX_INPUTS};
/// `Geometry<MAX_INPUTS>` in 64-bit words; a kernel with fewer inputs reads a prefix.
const GEOMETRY_WORDS: usize = 2 + MAX_DIMS * (1 + MAX_INPUTS);

/// Handler body shared by every CUDA ufunc.
///
/// # Safety
/// `frame` must be the call frame XLA passed to the handler.
pub unsafe fn run_ufunc(frame: *mut XLA_FFI_CallFrame, uf: &Ufunc) -> *mut XLA_FFI_Error {
    entry_staged(
        frame,
        uf.name,
        COMMAND_BUFFER_COMPATIBLE,
        |_| uf.module.load_on_active_devices(),
        |call| execute(call, uf),
    )
}

/// `bridgegen::Geometry<nin>` of kernel.cuh as 64-bit words: n, ndim, shape[8],
/// strides[nin][8] (input strides in elements). On the stack: built on every call.
pub fn geometry(b: &Broadcast, nin: usize) -> Result<[i64; GEOMETRY_WORDS], FfiError> {
    let ndim = b.shape.len();
    if ndim > MAX_DIMS {
        return Err(FfiError::invalid(format!(
            "operands broadcast to {ndim} dimensions that cannot be merged; CUDA kernels handle {MAX_DIMS}"
        )));
    }
    if nin > MAX_INPUTS {
        return Err(FfiError::invalid(format!("{nin} inputs; CUDA kernels handle {MAX_INPUTS}")));
    }
    let mut words = [0i64; GEOMETRY_WORDS];
    words[0] = b.total();
    words[1] = ndim as i64;
    words[2..2 + ndim].copy_from_slice(&b.shape);
    for k in 0..nin {
        let at = 2 + MAX_DIMS * (1 + k);
        words[at..at + ndim].copy_from_slice(&b.strides[k]);
    }
    Ok(words)
}

/// Blocks for `n` elements: one element per thread, at most `max_grid` blocks (the
/// kernels' grid-stride loops cover the rest).
pub fn grid(n: i64, block: u32, max_grid: u32) -> u32 {
    let blocks = (n + block as i64 - 1) / block as i64;
    blocks.clamp(1, max_grid.max(1) as i64) as u32
}

fn module_for(uf: &Ufunc, ordinal: i32, stream: CUstream) -> Result<&Loaded, FfiError> {
    if let Some(loaded) = uf.module.get(ordinal)? {
        return Ok(loaded);
    }
    // Not loaded at instantiation (the device's context was not active then). Loading is
    // fine now unless XLA is capturing this call into a graph.
    let d = Driver::get()?;
    let mut status = 0;
    // SAFETY: stream is XLA's stream for this call.
    d.check(unsafe { (d.cuStreamIsCapturing)(stream, &mut status) }, "cuStreamIsCapturing")?;
    if status != STREAM_CAPTURE_STATUS_NONE {
        return Err(FfiError::internal(format!(
            "kernels of {} are not loaded on device {ordinal} and the stream is being captured into a CUDA graph",
            uf.name
        )));
    }
    uf.module.load(ordinal)
}

fn execute(call: &Call, uf: &Ufunc) -> Result<(), FfiError> {
    let bufs = elementwise::operands(call, uf.nin, uf.nout)?;
    let index = elementwise::find_loop(uf.loops, |l| l, &bufs, uf.nin)?;
    // A generalized ufunc's kernel also takes every operand's core extents (after the
    // geometry), and its geometry counts whole core blocks.
    let mut core = [0i64; crate::abi::MAX_CORE_DIMS];
    let broadcast = match uf.core {
        None => {
            let shape = elementwise::output_shape(&bufs, uf.nin)?;
            let dims: Vec<&[i64]> = bufs.iter().map(|b| b.dims).collect();
            Broadcast::new(&dims, &shape, uf.nin)?
        }
        Some(sig) => {
            let layout = sig.layout(&bufs, uf.nin)?;
            core[..layout.core.len()].copy_from_slice(&layout.core);
            layout.outer
        }
    };
    let n = broadcast.total();
    if n == 0 {
        return Ok(());
    }
    let stream = call.stream()? as CUstream;
    let ordinal = call.device_ordinal()?;
    let loaded = module_for(uf, ordinal, stream)?;
    let kernel = loaded.kernels[index];
    let mut geom = geometry(&broadcast, uf.nin)?;
    let mut ptrs: Vec<*mut c_void> = bufs.iter().map(|b| b.data as *mut c_void).collect();
    // cuLaunchKernel takes a pointer to each argument: the geometry struct, then the
    // operand pointers.
    let mut params: Vec<*mut c_void> = Vec::with_capacity(2 + ptrs.len());
    params.push(geom.as_mut_ptr() as *mut c_void);
    if uf.core.is_some() {
        params.push(core.as_mut_ptr() as *mut c_void);
    }
    params.extend(ptrs.iter_mut().map(|p| p as *mut *mut c_void as *mut c_void));
    let d = Driver::get()?;
    // SAFETY: the module's context is a retained primary context.
    let _ctx = unsafe { ContextGuard::push(d, loaded.context)? };
    if elementwise::poison_outputs() {
        let outs = bufs[uf.nin..].iter().zip(&uf.loops[index][uf.nin..]);
        for (b, t) in outs.filter(|(b, _)| elementwise::may_poison(&bufs, uf.nin, b)) {
            let bytes = b.len().max(0) as usize * t.size();
            // SAFETY: an output buffer of this call, `bytes` long, on this call's stream.
            d.check(unsafe { (d.cuMemsetD8Async)(b.data as u64, 0xFF, bytes, stream) }, "cuMemsetD8Async")?;
        }
    }
    // SAFETY: the kernel's parameters are (Geometry<nin>, core extents for a generalized
    // ufunc, nin input pointers, nout output pointers), matching `params`; buffers are XLA's
    // for this call on this stream.
    let rc = unsafe {
        (d.cuLaunchKernel)(
            kernel.function,
            grid(n, kernel.block, kernel.max_grid),
            1,
            1,
            kernel.block,
            1,
            1,
            0,
            stream,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    if rc != CUDA_SUCCESS {
        // Formatted only on failure: this runs on every call.
        return Err(FfiError::internal(format!(
            "launching the kernel on device {ordinal} failed: {}",
            d.error_name(rc)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_the_kernel_struct() {
        let b = Broadcast::new(&[&[1, 3], &[2, 1], &[2, 3]], &[2, 3], 2).unwrap();
        let g = geometry(&b, 2).unwrap();
        assert_eq!(g.len(), 2 + 8 * 9);
        assert_eq!(&g[..4], &[6, 2, 2, 3]);
        assert_eq!(&g[10..12], &[0, 1]); // input 0
        assert_eq!(&g[18..20], &[1, 0]); // input 1
    }

    #[test]
    fn grids_cover_large_arrays() {
        assert_eq!(grid(1, 128, 8448), 1);
        assert_eq!(grid(129, 128, 8448), 2);
        assert_eq!(grid(1 << 40, 128, 8448), 8448);
        assert_eq!(grid(1 << 40, 128, 0), 1);
    }
}
