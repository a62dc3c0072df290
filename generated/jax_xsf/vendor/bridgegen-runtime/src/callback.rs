//! Delegation to Python (`jax_cupy_bridge.cupy_lazy_apply` / `lazy_apply`): one handler
//! per platform hands XLA's buffers, stream and device ordinal to a dispatcher the Python
//! package installs (a ctypes callback, which takes the GIL itself), together with the id
//! of the Python callable to run. The Python side keeps the callables; the HLO carries
//! only the id.
//!
//! Device memory the callable allocates beyond its workspace comes from XLA's allocator
//! (`XLA_FFI_DeviceMemory_Allocate`) through `CallbackCall::allocate`, and is freed when
//! the call returns: nothing allocated in a call outlives it.

use crate::cuda::replay::Plan;
use crate::ffi::{XLA_FFI_CallFrame, XLA_FFI_Error, COMMAND_BUFFER_COMPATIBLE};
use crate::frame::{entry, Call, FfiError};
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

pub use crate::abi::{CallbackBuffer, CallbackCall};
use crate::abi::{ERROR_CAPACITY, PLATFORM_CPU as CPU, PLATFORM_CUDA as CUDA};

/// Returns 0 on success, else writes `error` and returns non-zero.
pub type Dispatcher = unsafe extern "C" fn(*mut CallbackCall) -> c_int;

static DISPATCHER: AtomicUsize = AtomicUsize::new(0);
/// Calls inside the dispatcher right now (see `bg_callback_shutdown`).
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Install the Python dispatcher (the Python package does this once, at import).
#[no_mangle]
pub extern "C" fn bg_callback_set_dispatcher(dispatcher: Option<Dispatcher>) {
    DISPATCHER.store(dispatcher.map_or(0, |f| f as usize), Ordering::SeqCst);
}

/// Uninstall the dispatcher and wait up to `timeout_ms` for calls already inside it to
/// return; true when none is left. The Python package calls this at exit (from `atexit`,
/// through ctypes, which releases the GIL so those calls can finish): a thread of XLA's
/// that enters Python once the interpreter is finalizing is unwound by CPython, which
/// aborts the process ("FATAL: exception not rethrown") when XLA's frames catch the
/// unwind. Calls that start afterwards fail with an error instead of entering Python.
#[no_mangle]
pub extern "C" fn bg_callback_shutdown(timeout_ms: u64) -> bool {
    DISPATCHER.store(0, Ordering::SeqCst);
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(timeout_ms);
    while IN_FLIGHT.load(Ordering::SeqCst) != 0 {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    true
}

/// Counts a call as in flight for as long as it lives.
struct InFlight;

impl InFlight {
    fn enter() -> Self {
        IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

struct State<'c, 'a> {
    call: &'c Call<'a>,
    allocations: Vec<(*mut c_void, usize)>,
    failure: Option<FfiError>,
    /// The call is being captured into a graph for replay (`cuda::replay`): memory from
    /// XLA's allocator would be gone when the graph runs again, so none is handed out.
    capturing: bool,
}

unsafe extern "C" fn allocate(call: *mut CallbackCall, size: usize, out: *mut *mut c_void) -> c_int {
    // SAFETY: `state` is the State of the running handler, alive until it returns.
    let state = &mut *((*call).state as *mut State);
    if state.capturing {
        return 1;
    }
    match state.call.allocate(size.max(1), 16) {
        Ok(p) => {
            state.allocations.push((p, size.max(1)));
            *out = p;
            0
        }
        Err(e) => {
            state.failure = Some(e);
            1
        }
    }
}

fn run(call: &Call, platform: i32, graph_safe: bool) -> Result<(), FfiError> {
    // Counted before the dispatcher is read: `bg_callback_shutdown` clears it first, then
    // waits for the count, so a call either sees no dispatcher or is waited for.
    let _in_flight = InFlight::enter();
    let addr = DISPATCHER.load(Ordering::SeqCst);
    if addr == 0 {
        return Err(FfiError::internal(
            "no Python dispatcher installed (import jax_cupy_bridge), or the interpreter is shutting down",
        ));
    }
    // SAFETY: only `bg_callback_set_dispatcher` stores non-zero values, all Dispatchers.
    let dispatcher: Dispatcher = unsafe { std::mem::transmute::<usize, Dispatcher>(addr) };
    let id = call.attr_i64("callback_id")?;
    let (stream, device) =
        if platform == CUDA { (call.stream()?, call.device_ordinal()?) } else { (std::ptr::null_mut(), 0) };
    let describe = |b: crate::frame::Buffer| CallbackBuffer {
        data: b.data as *mut c_void,
        dtype: b.dtype,
        rank: b.dims.len() as i64,
        dims: b.dims.as_ptr(),
    };
    let args: Vec<CallbackBuffer> =
        (0..call.num_args()).map(|i| call.arg(i).map(describe)).collect::<Result<_, _>>()?;
    let rets: Vec<CallbackBuffer> =
        (0..call.num_rets()).map(|i| call.ret(i).map(describe)).collect::<Result<_, _>>()?;
    let mut state = State { call, allocations: Vec::new(), failure: None, capturing: false };
    // Allocated per dispatch, so a replayed graph_safe call allocates no error buffer.
    let dispatch = |state: &mut State, stream: *mut c_void| {
        let mut error = vec![0 as c_char; ERROR_CAPACITY];
        let mut cc = CallbackCall {
            id,
            platform,
            device,
            stream,
            nargs: args.len() as i64,
            args: args.as_ptr(),
            nrets: rets.len() as i64,
            rets: rets.as_ptr(),
            allocate,
            state: state as *mut State as *mut c_void,
            error: error.as_mut_ptr(),
            error_capacity: ERROR_CAPACITY,
        };
        // SAFETY: the dispatcher reads `cc` and the buffers it points to, all alive here.
        let rc = unsafe { dispatcher(&mut cc) };
        if rc == 0 {
            return Ok(());
        }
        // SAFETY: the buffer is NUL-terminated (zeroed, and the writer leaves the last byte).
        error[ERROR_CAPACITY - 1] = 0;
        let msg = unsafe { std::ffi::CStr::from_ptr(error.as_ptr()) }.to_string_lossy().into_owned();
        Err(state.failure.take().unwrap_or(FfiError::internal(msg)))
    };
    let result = if graph_safe && platform == CUDA {
        // What a graph depends on: each buffer's address, and (for safety's sake, though a
        // call site's shapes are fixed) its type and shape.
        let mut key = Vec::new();
        for b in args.iter().chain(&rets) {
            key.extend([b.data as usize, b.dtype as usize, b.rank as usize]);
            // SAFETY: `dims` points to `rank` dimensions of a live buffer of this call.
            key.extend(unsafe { std::slice::from_raw_parts(b.dims, b.rank as usize) }.iter().map(|&d| d as usize));
        }
        // SAFETY: XLA's stream and device for this call.
        match unsafe { crate::cuda::replay::plan(id, device, stream, key)? } {
            Plan::Replayed => Ok(()),
            Plan::Run => dispatch(&mut state, stream),
            Plan::Capture(capture) => {
                state.capturing = true;
                let captured = dispatch(&mut state, capture.stream);
                state.capturing = false;
                if capture.finish(captured.is_ok())? {
                    Ok(())
                } else {
                    // Nothing ran: run it again outside a capture, and if that works, the
                    // callable is not capturable (it synchronised, read memory back...).
                    let again = dispatch(&mut state, stream);
                    if again.is_ok() {
                        crate::cuda::replay::mark_uncapturable(id);
                    }
                    again
                }
            }
        }
    } else {
        dispatch(&mut state, stream)
    };
    // Work on XLA's stream may still use these; XLA's allocator is ordered on that stream.
    for (p, size) in state.allocations.drain(..) {
        call.free(p, size)?;
    }
    result
}

/// Python forgot callable `id` (its traced call is gone): drop the graphs kept for it.
#[no_mangle]
pub extern "C" fn bg_callback_forget(id: i64) {
    crate::cuda::replay::forget(id);
}

/// Graphs kept for replay over all callables (for leak tests).
#[no_mangle]
pub extern "C" fn bg_callback_graphs_kept() -> u64 {
    crate::cuda::replay::kept() as u64
}

/// # Safety
/// Called by XLA with a valid call frame.
#[no_mangle]
pub unsafe extern "C" fn bg_callback_cpu(frame: *mut XLA_FFI_CallFrame) -> *mut XLA_FFI_Error {
    entry(frame, "jax_cupy_bridge callback", 0, |call| run(call, CPU, false))
}

/// # Safety
/// Called by XLA with a valid call frame.
#[no_mangle]
pub unsafe extern "C" fn bg_callback_cuda(frame: *mut XLA_FFI_CallFrame) -> *mut XLA_FFI_Error {
    entry(frame, "jax_cupy_bridge callback", 0, |call| run(call, CUDA, false))
}

/// The same, declared safe for XLA's command buffers (`graph_safe=True`): the callable
/// must issue the same device work every time, so Python runs only when XLA (re)captures
/// the call, or, outside XLA's command buffers, when `cuda::replay` has no graph of the
/// call for these buffer addresses yet.
///
/// # Safety
/// Called by XLA with a valid call frame.
#[no_mangle]
pub unsafe extern "C" fn bg_callback_cuda_graph(frame: *mut XLA_FFI_CallFrame) -> *mut XLA_FFI_Error {
    entry(frame, "jax_cupy_bridge callback", COMMAND_BUFFER_COMPATIBLE, |call| run(call, CUDA, true))
}
