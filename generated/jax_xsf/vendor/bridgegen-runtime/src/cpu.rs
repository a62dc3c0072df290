//! Elementwise execution on the host: find the type loop matching the buffers, broadcast
//! inputs against the output shape (NumPy rules, stride 0 on broadcast axes), merge axes
//! that are contiguous for every operand, and run the C++ strided loop over slices of the
//! flattened index space, in parallel for large arrays.

use crate::abi::DType;
use crate::broadcast::Broadcast;
use crate::elementwise;
use crate::ffi::{XLA_FFI_CallFrame, XLA_FFI_Error};
use crate::frame::{entry, Buffer, Call, FfiError};
use crate::gufunc::Signature;
use rayon::prelude::*;

/// NumPy-style inner loop: `args` operand pointers, `dims[0]` elements, `steps` byte strides.
pub type LoopFn = unsafe extern "C" fn(args: *const *mut u8, dims: *const i64, steps: *const i64);

/// One type signature and its compiled loop.
pub struct Loop {
    /// Input types then output types.
    pub types: &'static [DType],
    pub kernel: LoopFn,
}

/// A generated ufunc: its qualified name (for errors) and loops.
pub struct Ufunc {
    pub name: &'static str,
    pub nin: usize,
    pub nout: usize,
    pub loops: &'static [Loop],
    /// Core dimensions, for a generalized ufunc.
    pub core: Option<&'static Signature>,
}

/// Elements below which one thread does the whole call (thread hand-off costs more).
const MIN_PARALLEL: i64 = 1 << 15;
/// Elements per parallel task.
const CHUNK: i64 = 1 << 14;

/// Handler body shared by every CPU ufunc.
///
/// # Safety
/// `frame` must be the call frame XLA passed to the handler.
pub unsafe fn run_ufunc(frame: *mut XLA_FFI_CallFrame, uf: &Ufunc) -> *mut XLA_FFI_Error {
    entry(frame, uf.name, 0, |call| execute(call, uf))
}

fn execute(call: &Call, uf: &Ufunc) -> Result<(), FfiError> {
    let bufs = elementwise::operands(call, uf.nin, uf.nout)?;
    let lp = &uf.loops[elementwise::find_loop(uf.loops, |l| l.types, &bufs, uf.nin)?];
    let plan = match uf.core {
        None => Plan::new(&bufs, lp.types, &elementwise::output_shape(&bufs, uf.nin)?, uf.nin)?,
        Some(sig) => Plan::gufunc(&bufs, lp.types, sig, uf.nin)?,
    };
    for (b, t) in bufs[uf.nin..].iter().zip(&lp.types[uf.nin..]) {
        let bytes = b.len().max(0) as usize * t.size();
        advise_huge_pages(b.data, bytes);
        if elementwise::poison_outputs() && bytes > 0 && elementwise::may_poison(&bufs, uf.nin, b) {
            // SAFETY: the output buffer of this call holds `bytes` bytes.
            unsafe { std::ptr::write_bytes(b.data, 0xFF, bytes) };
        }
    }
    let _ieee = IeeeDenormals::enter();
    plan.run(lp.kernel);
    Ok(())
}

/// Outputs below this size are left alone.
const HUGE_PAGE_MIN_BYTES: usize = 8 << 20;

/// Ask the kernel to back a large output with transparent huge pages before the loop first
/// touches it. XLA hands us freshly allocated outputs; with 4 KiB pages their first-touch
/// faults cost about as much as computing a cheap function (NumPy gives the same hint for
/// its large arrays). Advisory only: the contents and ownership of the buffer are unchanged,
/// and a refusal (THP off, old kernel) is ignored.
fn advise_huge_pages(data: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const TWO_MIB: usize = 2 << 20;
        const MADV_HUGEPAGE: i32 = 14;
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        if bytes < HUGE_PAGE_MIN_BYTES {
            return;
        }
        // Only whole 2 MiB pages inside the buffer, so no neighbouring allocation is touched.
        let start = (data as usize).div_ceil(TWO_MIB) * TWO_MIB;
        let end = (data as usize + bytes) / TWO_MIB * TWO_MIB;
        if end > start {
            // SAFETY: the range lies inside a live output buffer of this call.
            unsafe { madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (data, bytes);
}

/// XLA runs its CPU threads with denormals flushed to zero (FTZ/DAZ). xsf, like SciPy,
/// relies on gradual underflow in intermediate results, so the calling thread gets IEEE
/// denormals for the duration of the call (rayon's workers have them by default).
struct IeeeDenormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

#[cfg(target_arch = "x86_64")]
impl IeeeDenormals {
    const FTZ_DAZ: u32 = (1 << 15) | (1 << 6);

    fn enter() -> Self {
        let mut saved: u32 = 0;
        // SAFETY: reads and writes the SSE control register of this thread only.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved, options(nostack));
            let ieee = saved & !Self::FTZ_DAZ;
            std::arch::asm!("ldmxcsr [{}]", in(reg) &ieee, options(nostack));
        }
        IeeeDenormals { saved }
    }
}

#[cfg(target_arch = "x86_64")]
impl Drop for IeeeDenormals {
    fn drop(&mut self) {
        // SAFETY: restores the value read in `enter`.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &self.saved, options(nostack)) };
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl IeeeDenormals {
    fn enter() -> Self {
        IeeeDenormals {}
    }
}

/// Broadcast-and-merged iteration space: `shape` (at least one axis), per-operand byte
/// strides for each axis, and base pointers; for a generalized ufunc the space is its
/// outer axes, and every loop call also gets the core extents (`dims[1..]`).
struct Plan {
    shape: Vec<i64>,
    strides: Vec<Vec<i64>>,
    ptrs: Vec<usize>,
    total: i64,
    core: Vec<i64>,
    /// Elements one iteration touches (1, or all operands' core blocks), for splitting work.
    work: i64,
}

impl Plan {
    fn new(bufs: &[Buffer], types: &[DType], out_shape: &[i64], nin: usize) -> Result<Plan, FfiError> {
        let dims: Vec<&[i64]> = bufs.iter().map(|b| b.dims).collect();
        Ok(Plan::of(bufs, types, Broadcast::new(&dims, out_shape, nin)?, Vec::new(), 1))
    }

    fn gufunc(bufs: &[Buffer], types: &[DType], sig: &Signature, nin: usize) -> Result<Plan, FfiError> {
        let layout = sig.layout(bufs, nin)?;
        let work = layout.block.iter().sum::<i64>().max(1);
        Ok(Plan::of(bufs, types, layout.outer, layout.core, work))
    }

    fn of(bufs: &[Buffer], types: &[DType], b: Broadcast, core: Vec<i64>, work: i64) -> Plan {
        let Broadcast { shape, strides } = b;
        // The C++ loops step in bytes.
        let strides =
            strides.into_iter().zip(types).map(|(s, t)| s.into_iter().map(|x| x * t.size() as i64).collect()).collect();
        let total = shape.iter().product();
        Plan { shape, strides, ptrs: bufs.iter().map(|b| b.data as usize).collect(), total, core, work }
    }

    fn run(&self, kernel: LoopFn) {
        if self.total <= 0 {
            return;
        }
        let chunk = (CHUNK / self.work).max(1);
        if self.total.saturating_mul(self.work) < MIN_PARALLEL || self.total == 1 || rayon::current_num_threads() <= 1 {
            self.run_range(kernel, 0, self.total);
        } else {
            let chunks = (self.total + chunk - 1) / chunk;
            (0..chunks).into_par_iter().for_each(|c| {
                self.run_range(kernel, c * chunk, ((c + 1) * chunk).min(self.total));
            });
        }
    }

    /// Run elements `lo..hi` of the flattened (row-major) iteration space.
    fn run_range(&self, kernel: LoopFn, lo: i64, hi: i64) {
        let rank = self.shape.len();
        let inner = rank - 1;
        let mut idx = vec![0i64; rank];
        let mut rem = lo;
        for d in (0..rank).rev() {
            idx[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let steps: Vec<i64> = self.strides.iter().map(|s| s[inner]).collect();
        let mut ptrs: Vec<*mut u8> = vec![std::ptr::null_mut(); self.ptrs.len()];
        // dims: this run's element count, then the core extents (none when elementwise).
        let mut dims = [0i64; 1 + crate::abi::MAX_CORE_DIMS];
        dims[1..1 + self.core.len()].copy_from_slice(&self.core);
        let mut pos = lo;
        while pos < hi {
            let count = (self.shape[inner] - idx[inner]).min(hi - pos);
            dims[0] = count;
            for (k, p) in ptrs.iter_mut().enumerate() {
                let off: i64 = idx.iter().zip(&self.strides[k]).map(|(i, s)| i * s).sum();
                *p = (self.ptrs[k] as isize + off as isize) as *mut u8;
            }
            // SAFETY: pointers and strides describe XLA's live buffers for this call, and
            // the range stays inside the broadcast shape.
            unsafe { kernel(ptrs.as_ptr(), dims.as_ptr(), steps.as_ptr()) };
            pos += count;
            idx[inner] += count;
            let mut d = inner;
            while d > 0 && idx[d] == self.shape[d] {
                idx[d] = 0;
                idx[d - 1] += 1;
                d -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn add(args: *const *mut u8, dims: *const i64, steps: *const i64) {
        let (a, b, o) = (*args, *args.add(1), *args.add(2));
        for i in 0..*dims as isize {
            let x = *(a.offset(i * *steps as isize) as *const f64);
            let y = *(b.offset(i * *steps.add(1) as isize) as *const f64);
            *(o.offset(i * *steps.add(2) as isize) as *mut f64) = x + y;
        }
    }

    fn run(a: &[f64], ad: &[i64], b: &[f64], bd: &[i64], od: &[i64]) -> Result<Vec<f64>, FfiError> {
        let n: i64 = od.iter().product();
        let mut out = vec![f64::NAN; n as usize];
        let bufs = [
            Buffer { dtype: 12, data: a.as_ptr() as *mut u8, dims: ad },
            Buffer { dtype: 12, data: b.as_ptr() as *mut u8, dims: bd },
            Buffer { dtype: 12, data: out.as_mut_ptr() as *mut u8, dims: od },
        ];
        let plan = Plan::new(&bufs, &[DType::F64; 3], od, 2)?;
        plan.run(add);
        Ok(out)
    }

    #[test]
    fn broadcasts_like_numpy() {
        let a = [1.0, 2.0, 3.0];
        let b = [10.0, 20.0];
        let out = run(&a, &[1, 3], &b, &[2, 1], &[2, 3]).unwrap();
        assert_eq!(out, [11.0, 12.0, 13.0, 21.0, 22.0, 23.0]);
        let out = run(&a, &[3], &[5.0], &[], &[3]).unwrap();
        assert_eq!(out, [6.0, 7.0, 8.0]);
        let out = run(&[1.0], &[], &[2.0], &[], &[]).unwrap();
        assert_eq!(out, [3.0]);
        assert!(run(&a, &[3], &b, &[2], &[3]).is_err());
        assert_eq!(run(&[], &[0], &[1.0], &[], &[0]).unwrap(), Vec::<f64>::new());
    }

    #[test]
    fn large_arrays_cover_every_element_once() {
        let n = 3 * MIN_PARALLEL as usize + 17;
        let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let rows = 7i64;
        let b: Vec<f64> = (0..rows).map(|r| (r * 1_000_000) as f64).collect();
        let cols = n as i64;
        let out = run(&a, &[1, cols], &b, &[rows, 1], &[rows, cols]).unwrap();
        for r in 0..rows as usize {
            for c in [0, 1, n / 2, n - 1] {
                assert_eq!(out[r * n + c], c as f64 + (r * 1_000_000) as f64);
            }
        }
        assert!(out.iter().all(|v| !v.is_nan()));
    }
}
