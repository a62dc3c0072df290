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

/// A flat launch (one merged axis) moving at least this many bytes per element gets one
/// element per thread rather than the capped grid: with 32-bit indices, float64 and
/// multi-operand kernels stream faster that way, single-operand float32 ones slower
/// (bench/kernel_variants.py, H100, 2026-12-06: exp10 float64 0.98x cupyx's kernel at 2^24
/// against 1.01x capped, kl_div float64 0.99x against 1.05x; exp2 float32 0.93x against 0.61x).
pub const STREAMING_BYTES: usize = 16;

/// Calls `launch` with each part of the iteration space `b` that one elementwise launch
/// covers (at most `limit` elements: kernels index in 32 bits) and each operand's element
/// offset to that part's first element. Outputs within `limit` are one part, `b` itself.
/// Larger ones are split along one axis into runs of whole trailing blocks, the axes before
/// it walked an index at a time, so every part's output is contiguous.
pub fn for_each_launch(
    b: &Broadcast,
    limit: i64,
    mut launch: impl FnMut(&Broadcast, &[i64]) -> Result<(), FfiError>,
) -> Result<(), FfiError> {
    let nops = b.strides.len();
    if b.total() <= limit {
        return launch(b, &vec![0; nops]);
    }
    // The split axis: the last one whose trailing block (the axes after it) fits.
    let mut axis = b.shape.len() - 1;
    let mut block = 1i64;
    while axis > 0 && block * b.shape[axis] <= limit {
        block *= b.shape[axis];
        axis -= 1;
    }
    let run = (limit / block).max(1);
    let mut lead = vec![0i64; axis];
    loop {
        for start in (0..b.shape[axis]).step_by(run as usize) {
            let len = run.min(b.shape[axis] - start);
            let mut shape = vec![len];
            shape.extend_from_slice(&b.shape[axis + 1..]);
            let part = Broadcast { shape, strides: b.strides.iter().map(|s| s[axis..].to_vec()).collect() };
            let offsets: Vec<i64> = b
                .strides
                .iter()
                .map(|s| lead.iter().zip(s).map(|(i, st)| i * st).sum::<i64>() + start * s[axis])
                .collect();
            launch(&part, &offsets)?;
        }
        // The next index of the leading axes, row-major; done after the last.
        let mut a = axis;
        loop {
            if a == 0 {
                return Ok(());
            }
            a -= 1;
            lead[a] += 1;
            if lead[a] < b.shape[a] {
                break;
            }
            lead[a] = 0;
        }
    }
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
    if broadcast.total() == 0 {
        return Ok(());
    }
    let stream = call.stream()? as CUstream;
    let ordinal = call.device_ordinal()?;
    let loaded = module_for(uf, ordinal, stream)?;
    let kernel = loaded.kernels[index];
    let types = uf.loops[index];
    let d = Driver::get()?;
    // SAFETY: the module's context is a retained primary context.
    let _ctx = unsafe { ContextGuard::push(d, loaded.context)? };
    if elementwise::poison_outputs() {
        let outs = bufs[uf.nin..].iter().zip(&types[uf.nin..]);
        for (b, t) in outs.filter(|(b, _)| elementwise::may_poison(&bufs, uf.nin, b)) {
            let bytes = b.len().max(0) as usize * t.size();
            // SAFETY: an output buffer of this call, `bytes` long, on this call's stream.
            d.check(unsafe { (d.cuMemsetD8Async)(b.data as u64, 0xFF, bytes, stream) }, "cuMemsetD8Async")?;
        }
    }
    let mut launch = |part: &Broadcast, offsets: &[i64]| -> Result<(), FfiError> {
        let n = part.total();
        let mut geom = geometry(part, uf.nin)?;
        let mut ptrs: Vec<*mut c_void> = bufs
            .iter()
            .zip(offsets)
            .zip(types)
            // Device addresses: `offsets` index this part's first element of each operand.
            .map(|((b, off), t)| (b.data as *mut c_void).wrapping_byte_offset(*off as isize * t.size() as isize))
            .collect();
        // A flat elementwise part's bytes per element: its non-broadcast inputs and the
        // outputs (a generalized ufunc's thread walks whole core blocks: capped as before).
        let flat = uf.core.is_none() && part.shape.len() == 1;
        let bytes: usize = types.iter().zip(&part.strides).filter(|(_, s)| s[0] != 0).map(|(t, _)| t.size()).sum();
        let max_grid = if flat && bytes >= STREAMING_BYTES { module::MAX_GRID_X } else { kernel.max_grid };
        // cuLaunchKernel takes a pointer to each argument: the geometry struct, (a
        // generalized ufunc's core extents,) then the operand pointers.
        let mut params: Vec<*mut c_void> = Vec::with_capacity(2 + ptrs.len());
        params.push(geom.as_mut_ptr() as *mut c_void);
        if uf.core.is_some() {
            params.push(core.as_mut_ptr() as *mut c_void);
        }
        params.extend(ptrs.iter_mut().map(|p| p as *mut *mut c_void as *mut c_void));
        // SAFETY: the kernel's parameters are (Geometry<nin>, core extents for a generalized
        // ufunc, nin input pointers, nout output pointers), matching `params`; buffers are
        // XLA's for this call on this stream.
        let rc = unsafe {
            (d.cuLaunchKernel)(
                kernel.function,
                grid(n, kernel.block, max_grid),
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
    };
    match uf.core {
        // A generalized ufunc's kernel indexes in 64 bits: one launch.
        Some(_) => launch(&broadcast, &vec![0; bufs.len()]),
        None => for_each_launch(&broadcast, crate::abi::CUDA_LAUNCH_MAX_ELEMENTS, launch),
    }
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

    /// Every part's elements, mapped to each operand's element offset, in launch order.
    fn launched(b: &Broadcast, limit: i64) -> (Vec<Vec<i64>>, Vec<i64>) {
        let mut seen = vec![Vec::new(); b.strides.len()];
        let mut sizes = Vec::new();
        for_each_launch(b, limit, |part, offsets| {
            sizes.push(part.total());
            for i in 0..part.total() {
                let mut rest = i;
                let mut off = offsets.to_vec();
                for d in (0..part.shape.len()).rev() {
                    let idx = rest % part.shape[d];
                    rest /= part.shape[d];
                    for (o, s) in off.iter_mut().zip(&part.strides) {
                        *o += idx * s[d];
                    }
                }
                for (k, o) in off.into_iter().enumerate() {
                    seen[k].push(o);
                }
            }
            Ok(())
        })
        .unwrap();
        (seen, sizes)
    }

    #[test]
    fn launches_split_large_outputs_into_contiguous_parts() {
        // (input shapes, output shape, limit); operands: the inputs, then the output.
        type Case<'a> = (&'a [&'a [i64]], &'a [i64], i64);
        let cases: &[Case] = &[
            (&[&[10], &[1]], &[10], 4),
            (&[&[10], &[1]], &[10], 100),
            (&[&[3, 5], &[5]], &[3, 5], 7),
            (&[&[2, 3, 4], &[3, 1]], &[2, 3, 4], 5),
            (&[&[2, 3, 4], &[3, 1]], &[2, 3, 4], 12),
            (&[&[2, 10], &[2, 1]], &[2, 10], 4),
            (&[&[2, 1, 7], &[1, 3, 1]], &[2, 3, 7], 1),
        ];
        for &(ins, out, limit) in cases {
            let mut dims: Vec<&[i64]> = ins.to_vec();
            dims.push(out);
            let b = Broadcast::new(&dims, out, ins.len()).unwrap();
            let whole = launched(&b, i64::MAX).0;
            let (parts, sizes) = launched(&b, limit);
            // The same element offsets for every operand, in the same order: the output's
            // 0, 1, 2, ... (each part contiguous, none twice), the inputs' as broadcast.
            assert_eq!(parts, whole, "{ins:?} -> {out:?} in parts of {limit}");
            assert_eq!(parts.last().unwrap(), &(0..b.total()).collect::<Vec<_>>());
            assert!(sizes.iter().all(|&n| n <= limit), "{sizes:?} over {limit}");
            if b.total() <= limit {
                assert_eq!(sizes.len(), 1);
            }
        }
    }

    #[test]
    fn grids_cover_large_arrays() {
        assert_eq!(grid(1, 128, 8448), 1);
        assert_eq!(grid(129, 128, 8448), 2);
        assert_eq!(grid(1 << 40, 128, 8448), 8448);
        assert_eq!(grid(1 << 40, 128, 0), 1);
    }
}
