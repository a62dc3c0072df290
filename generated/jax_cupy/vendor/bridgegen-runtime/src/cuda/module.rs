//! Kernel images embedded in a generated library, and their per-device modules: picked
//! by compute capability, loaded once per device into its primary context (the one XLA
//! and CuPy use), with every kernel function looked up at load time so that a call only
//! launches.

use super::driver::*;
use crate::frame::FfiError;
use std::ffi::{c_int, c_uint, CStr};
use std::sync::OnceLock;

/// What an embedded image holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// Machine code for one architecture (`sm_XY`): runs on compute capability X.Y' with Y' >= Y.
    Cubin,
    /// PTX for a virtual architecture (`compute_XY`): the driver compiles it once for any
    /// GPU of capability >= X.Y and caches the result.
    Ptx,
}

/// One NVRTC output embedded in the library.
#[derive(Debug, Clone, Copy)]
pub struct Image {
    /// Architecture number: 90 for `sm_90` / `compute_90`.
    pub arch: u32,
    pub kind: ImageKind,
    pub data: &'static [u8],
}

impl Image {
    pub fn label(&self) -> String {
        match self.kind {
            ImageKind::Cubin => format!("sm_{}", self.arch),
            ImageKind::Ptx => format!("compute_{}", self.arch),
        }
    }
}

/// The image to load on a device of compute capability `major.minor`: a cubin of the same
/// major version and no newer minor one (the newest such), else the newest PTX the device
/// can compile.
pub fn select(images: &[Image], major: u32, minor: u32) -> Result<&Image, String> {
    let cc = major * 10 + minor;
    let cubin = images
        .iter()
        .filter(|i| i.kind == ImageKind::Cubin && i.arch / 10 == major && i.arch <= cc)
        .max_by_key(|i| i.arch);
    let ptx = images.iter().filter(|i| i.kind == ImageKind::Ptx && i.arch <= cc).max_by_key(|i| i.arch);
    cubin.or(ptx).ok_or_else(|| {
        let built: Vec<String> = images.iter().map(Image::label).collect();
        if built.is_empty() {
            "this library was built without CUDA kernels (NVRTC was not found or --cuda-arch none); rebuild it with NVRTC installed".to_string()
        } else {
            format!(
                "no kernel image for compute capability {major}.{minor} (built for: {}); rebuild with `bridgegen build --cuda-arch sm_{cc}`",
                built.join(", ")
            )
        }
    })
}

/// A kernel ready to launch on one device.
#[derive(Debug, Clone, Copy)]
pub struct Kernel {
    pub function: CUfunction,
    /// Threads per block: 128 (CuPy's choice for elementwise kernels), or fewer where the
    /// kernel's register use allows fewer.
    pub block: u32,
    /// Most blocks one launch uses: the device's capped grid for light kernels, no cap
    /// (one element per thread) for register-heavy ones (`HEAVY_REGISTERS`).
    pub max_grid: u32,
}

/// A module loaded on one device.
#[derive(Debug)]
pub struct Loaded {
    pub context: CUcontext,
    pub kernels: Vec<Kernel>,
}

// SAFETY: CUDA handles may be used from any thread.
unsafe impl Send for Loaded {}
unsafe impl Sync for Loaded {}

/// Devices a process may use (CUDA ordinals).
pub const MAX_DEVICES: usize = 64;
const BLOCK: c_int = 128;
/// Blocks per multiprocessor in a capped grid (`Loaded::max_grid`): four waves of 128-thread
/// blocks at full occupancy (16 blocks per SM); see docs/benchmarks.md for the measurements.
/// Past a few waves, more blocks only cost block scheduling for light kernels: on an H200
/// the capped grid took exp2 float32 at 2^26 from 385 to 203 µs.
const BLOCKS_PER_SM: c_int = 64;
/// Kernels using more registers per thread than this (the iterative statistics functions:
/// 96–255) get one element per thread instead: few of their blocks are resident, and a
/// thread walking several elements of uneven iteration counts leaves the SM idle at the
/// tail (gammaincinv at 2^22 on an H200: 10–12 % faster uncapped, gammainc 8–10 %, bdtr
/// 9–12 %; light kernels, 32–48 registers, the same or faster capped). docs/benchmarks-log.md.
const HEAVY_REGISTERS: c_int = 64;
/// So do kernels that spill this much per thread: the iterative functions the spec caps at
/// 32–40 registers (`cuda_max_registers`; 176–792 bytes of local memory), 5–9 % faster
/// at one element per thread on an H200 (gammaincc, pdtr, bdtrc, bdtri, fdtri, chdtri,
/// 2026-12-04 20:15 UTC).
const HEAVY_LOCAL_BYTES: c_int = 128;
/// CUDA's largest gridDim.x.
pub const MAX_GRID_X: u32 = i32::MAX as u32;

/// The images of one generated function, its kernels (one per type loop, in loop order),
/// and the modules loaded so far, per device.
pub struct Module {
    pub name: &'static str,
    pub images: &'static [Image],
    pub kernels: &'static [&'static CStr],
    /// Per-thread device stack the kernels need beyond what the compiler reserves (they
    /// recurse); 0 for none. Raises the context's limit at load, never lowers it.
    pub stack: usize,
    devices: [OnceLock<Result<Loaded, String>>; MAX_DEVICES],
}

/// Pops the context pushed by `ContextGuard::push` when dropped.
pub struct ContextGuard<'d> {
    driver: &'d Driver,
    pushed: bool,
}

impl<'d> ContextGuard<'d> {
    /// Make `context` current on this thread unless it already is.
    ///
    /// # Safety
    /// `context` must be a live CUDA context (a retained primary context).
    pub unsafe fn push(driver: &'d Driver, context: CUcontext) -> Result<Self, FfiError> {
        let mut current: CUcontext = std::ptr::null_mut();
        driver.check((driver.cuCtxGetCurrent)(&mut current), "cuCtxGetCurrent")?;
        if current == context {
            return Ok(ContextGuard { driver, pushed: false });
        }
        driver.check((driver.cuCtxPushCurrent)(context), "cuCtxPushCurrent")?;
        Ok(ContextGuard { driver, pushed: true })
    }
}

impl Drop for ContextGuard<'_> {
    fn drop(&mut self) {
        if self.pushed {
            let mut popped: CUcontext = std::ptr::null_mut();
            // SAFETY: pops the context pushed in `push`.
            unsafe { (self.driver.cuCtxPopCurrent)(&mut popped) };
        }
    }
}

/// The primary context of device `ordinal`, retained once per process (the runtime holds
/// it for the life of the process, like the modules loaded into it).
pub fn primary_context(d: &Driver, ordinal: i32) -> Result<CUcontext, FfiError> {
    static CONTEXTS: [OnceLock<Result<usize, String>>; MAX_DEVICES] = [const { OnceLock::new() }; MAX_DEVICES];
    let slot = usize::try_from(ordinal)
        .ok()
        .and_then(|i| CONTEXTS.get(i))
        .ok_or_else(|| FfiError::internal(format!("device ordinal {ordinal} is outside 0..{MAX_DEVICES}")))?;
    let ctx = slot.get_or_init(|| {
        let (mut dev, mut ctx): (CUdevice, CUcontext) = (0, std::ptr::null_mut());
        // SAFETY: plain driver calls with valid out-pointers.
        unsafe {
            d.check((d.cuDeviceGet)(&mut dev, ordinal), "cuDeviceGet").map_err(|e| e.message)?;
            d.check((d.cuDevicePrimaryCtxRetain)(&mut ctx, dev), "cuDevicePrimaryCtxRetain").map_err(|e| e.message)?;
        }
        Ok(ctx as usize)
    });
    ctx.clone().map(|c| c as CUcontext).map_err(FfiError::internal)
}

impl Module {
    pub const fn new(
        name: &'static str,
        images: &'static [Image],
        kernels: &'static [&'static CStr],
        stack: usize,
    ) -> Module {
        Module { name, images, kernels, stack, devices: [const { OnceLock::new() }; MAX_DEVICES] }
    }

    fn slot(&self, ordinal: i32) -> Result<&OnceLock<Result<Loaded, String>>, FfiError> {
        usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.devices.get(i))
            .ok_or_else(|| FfiError::internal(format!("device ordinal {ordinal} is outside 0..{MAX_DEVICES}")))
    }

    /// The module on device `ordinal` if it was loaded already.
    pub fn get(&self, ordinal: i32) -> Result<Option<&Loaded>, FfiError> {
        match self.slot(ordinal)?.get() {
            None => Ok(None),
            Some(Ok(l)) => Ok(Some(l)),
            Some(Err(e)) => Err(FfiError::internal(e.clone())),
        }
    }

    /// The module on device `ordinal`, loading it on first use (never call this where a
    /// graph capture may be running: loading is not a stream operation).
    pub fn load(&self, ordinal: i32) -> Result<&Loaded, FfiError> {
        self.slot(ordinal)?
            .get_or_init(|| self.load_now(ordinal).map_err(|e| e.message))
            .as_ref()
            .map_err(|e| FfiError::internal(e.clone()))
    }

    /// Load on every device whose primary context is already active (the devices this
    /// process computes on), without creating contexts on the others.
    pub fn load_on_active_devices(&self) -> Result<(), FfiError> {
        let d = Driver::get()?;
        let mut count: c_int = 0;
        // SAFETY: plain driver calls with valid out-pointers.
        d.check(unsafe { (d.cuDeviceGetCount)(&mut count) }, "cuDeviceGetCount")?;
        for ordinal in 0..count.min(MAX_DEVICES as c_int) {
            let mut dev: CUdevice = 0;
            d.check(unsafe { (d.cuDeviceGet)(&mut dev, ordinal) }, "cuDeviceGet")?;
            let (mut flags, mut active): (c_uint, c_int) = (0, 0);
            d.check(
                unsafe { (d.cuDevicePrimaryCtxGetState)(dev, &mut flags, &mut active) },
                "cuDevicePrimaryCtxGetState",
            )?;
            if active != 0 {
                self.load(ordinal)?;
            }
        }
        Ok(())
    }

    fn load_now(&self, ordinal: i32) -> Result<Loaded, FfiError> {
        let d = Driver::get()?;
        let mut dev: CUdevice = 0;
        // SAFETY (this block): plain driver calls with valid out-pointers; the image
        // buffer outlives cuModuleLoadData, which copies it.
        unsafe {
            d.check((d.cuDeviceGet)(&mut dev, ordinal), "cuDeviceGet")?;
            let (mut major, mut minor) = (0, 0);
            d.check((d.cuDeviceGetAttribute)(&mut major, ATTR_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute")?;
            d.check((d.cuDeviceGetAttribute)(&mut minor, ATTR_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute")?;
            let mut sms = 0;
            d.check((d.cuDeviceGetAttribute)(&mut sms, ATTR_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute")?;
            let image = select(self.images, major as u32, minor as u32).map_err(FfiError::internal)?;
            let context = primary_context(d, ordinal)?;
            let _guard = ContextGuard::push(d, context)?;
            if self.stack > 0 {
                // Recursion (hyp2f1) needs more than CUDA's default 1 KiB per thread; a kernel
                // that overflows its stack corrupts the context for the whole process.
                let mut limit = 0usize;
                d.check((d.cuCtxGetLimit)(&mut limit, LIMIT_STACK_SIZE), "cuCtxGetLimit")?;
                if limit < self.stack {
                    d.check((d.cuCtxSetLimit)(LIMIT_STACK_SIZE, self.stack), "cuCtxSetLimit(CU_LIMIT_STACK_SIZE)")?;
                }
            }
            // An 8-byte aligned copy, NUL-terminated (PTX is loaded as a C string).
            let mut buf = vec![0u64; image.data.len() / 8 + 1];
            std::ptr::copy_nonoverlapping(image.data.as_ptr(), buf.as_mut_ptr() as *mut u8, image.data.len());
            let mut module: CUmodule = std::ptr::null_mut();
            d.check(
                (d.cuModuleLoadData)(&mut module, buf.as_ptr() as *const _),
                &format!("loading the {} kernels of {} on device {ordinal}", image.label(), self.name),
            )?;
            let mut kernels = Vec::with_capacity(self.kernels.len());
            for name in self.kernels {
                let mut function: CUfunction = std::ptr::null_mut();
                d.check(
                    (d.cuModuleGetFunction)(&mut function, module, name.as_ptr()),
                    &format!("cuModuleGetFunction({name:?})"),
                )?;
                let mut max_threads: c_int = 0;
                d.check(
                    (d.cuFuncGetAttribute)(&mut max_threads, FUNC_ATTR_MAX_THREADS_PER_BLOCK, function),
                    "cuFuncGetAttribute",
                )?;
                let mut registers: c_int = 0;
                d.check((d.cuFuncGetAttribute)(&mut registers, FUNC_ATTR_NUM_REGS, function), "cuFuncGetAttribute")?;
                let mut local: c_int = 0;
                d.check(
                    (d.cuFuncGetAttribute)(&mut local, FUNC_ATTR_LOCAL_SIZE_BYTES, function),
                    "cuFuncGetAttribute",
                )?;
                let capped = sms.saturating_mul(BLOCKS_PER_SM).max(1) as u32;
                let heavy = registers > HEAVY_REGISTERS || local >= HEAVY_LOCAL_BYTES;
                let max_grid = if heavy { MAX_GRID_X } else { capped };
                kernels.push(Kernel { function, block: BLOCK.min(max_threads).max(1) as u32, max_grid });
            }
            // The module stays loaded for the life of the process, like the library.
            Ok(Loaded { context, kernels })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IMAGES: &[Image] =
        &[Image { arch: 90, kind: ImageKind::Cubin, data: b"" }, Image { arch: 80, kind: ImageKind::Ptx, data: b"" }];

    #[test]
    fn picks_cubin_of_same_major_else_ptx() {
        assert_eq!(select(IMAGES, 9, 0).unwrap().label(), "sm_90");
        assert_eq!(select(IMAGES, 8, 6).unwrap().label(), "compute_80");
        assert_eq!(select(IMAGES, 10, 0).unwrap().label(), "compute_80");
        assert!(select(IMAGES, 7, 5).unwrap_err().contains("7.5"));
        assert!(select(&[], 9, 0).unwrap_err().contains("without CUDA kernels"));
    }
}
