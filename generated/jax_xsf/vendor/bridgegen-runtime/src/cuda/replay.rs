//! Graph replay of delegated calls declared `graph_safe=True`.
//!
//! Python on every call is most of what a delegated call costs at small sizes
//! (docs/lazy.md). A graph-safe callable promises to issue the same device work every
//! time, so the first call with a given set of buffer addresses runs it under a CUDA
//! stream capture, and this and later calls with the same addresses launch the captured
//! graph on XLA's stream, the later ones without entering Python, as XLA's own command
//! buffers do when they capture the handler. The capture runs on a stream of the calling
//! thread's own, not on XLA's: other threads may be launching work onto XLA's stream at
//! the same time, and a capture takes in everything launched onto its stream.
//!
//! A call whose capture fails (the callable synchronised, read memory back, or asked
//! XLA's allocator for memory that would not outlive the call) runs again uncaptured, and
//! its callable is never captured again. Each callable keeps at most [`PER_CALLABLE`]
//! graphs, and drops them when Python forgets the callable.

use super::driver::*;
use super::module::{primary_context, ContextGuard};
use crate::frame::FfiError;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

/// Graphs kept per callable (distinct buffer addresses); the oldest goes first.
pub const PER_CALLABLE: usize = 8;

struct Exec(CUgraphExec);

// SAFETY: CUDA handles may be used from any thread.
unsafe impl Send for Exec {}

impl Drop for Exec {
    fn drop(&mut self) {
        if let Ok(d) = Driver::get() {
            // SAFETY: an exec this module instantiated; one still running is freed when done.
            unsafe { (d.cuGraphExecDestroy)(self.0) };
        }
    }
}

#[derive(Default)]
struct Graphs {
    /// Per callable id: (buffer addresses, graph), oldest first.
    execs: HashMap<i64, Vec<(Vec<usize>, Exec)>>,
    /// Callables whose capture failed once.
    uncapturable: HashSet<i64>,
}

fn graphs() -> std::sync::MutexGuard<'static, Graphs> {
    static GRAPHS: OnceLock<Mutex<Graphs>> = OnceLock::new();
    // A panic while holding the lock leaves plain data behind: keep using it.
    GRAPHS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner())
}

/// What a graph-safe call does.
pub enum Plan {
    /// A graph captured earlier was launched: the call is done.
    Replayed,
    /// Run the callable now, inside this capture, then [`Capture::finish`].
    Capture(Capture),
    /// Run the callable as usual: XLA is capturing this call itself, or the callable
    /// cannot be captured.
    Run,
}

/// A capture in progress (the context stays current until it ends).
pub struct Capture {
    id: i64,
    /// Where the callable must launch its work while it is captured.
    pub stream: CUstream,
    /// Where the graph runs.
    xla_stream: CUstream,
    key: Vec<usize>,
    _context: ContextGuard<'static>,
}

/// This thread's capture stream on device `ordinal` (made once per thread and device).
///
/// # Safety
/// The device's primary context must be current.
unsafe fn capture_stream(d: &Driver, ordinal: i32) -> Result<CUstream, FfiError> {
    thread_local! {
        static STREAMS: std::cell::RefCell<HashMap<i32, usize>> = Default::default();
    }
    if let Some(s) = STREAMS.with(|m| m.borrow().get(&ordinal).copied()) {
        return Ok(s as CUstream);
    }
    let mut s: CUstream = std::ptr::null_mut();
    d.check((d.cuStreamCreate)(&mut s, STREAM_NON_BLOCKING), "cuStreamCreate")?;
    STREAMS.with(|m| m.borrow_mut().insert(ordinal, s as usize));
    Ok(s)
}

/// Replay the graph of callable `id` for `key` (the call's buffer addresses, types and
/// shapes), or start capturing one.
///
/// # Safety
/// `stream` must be XLA's stream for the running call, on device `ordinal`.
pub unsafe fn plan(id: i64, ordinal: i32, stream: CUstream, key: Vec<usize>) -> Result<Plan, FfiError> {
    let d = Driver::get()?;
    // SAFETY: the primary context of the call's device, retained for the process.
    let context = ContextGuard::push(d, primary_context(d, ordinal)?)?;
    let mut status = 0;
    d.check((d.cuStreamIsCapturing)(stream, &mut status), "cuStreamIsCapturing")?;
    if status != STREAM_CAPTURE_STATUS_NONE {
        return Ok(Plan::Run);
    }
    {
        let g = graphs();
        if g.uncapturable.contains(&id) {
            return Ok(Plan::Run);
        }
        if let Some((_, exec)) = g.execs.get(&id).and_then(|v| v.iter().find(|(k, _)| *k == key)) {
            d.check((d.cuGraphLaunch)(exec.0, stream), "cuGraphLaunch")?;
            return Ok(Plan::Replayed);
        }
    }
    let capture = capture_stream(d, ordinal)?;
    // Thread-local mode: only this thread's unsafe calls end the capture; `finish` ends it.
    d.check((d.cuStreamBeginCapture)(capture, STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture")?;
    Ok(Plan::Capture(Capture { id, stream: capture, xla_stream: stream, key, _context: context }))
}

impl Capture {
    /// End the capture. When the callable succeeded (`ok`), launch and keep the graph and
    /// return true; otherwise, or when the capture failed, return false: nothing ran, and
    /// the caller runs the callable again uncaptured.
    pub fn finish(self, ok: bool) -> Result<bool, FfiError> {
        let d = Driver::get()?;
        let mut graph: CUgraph = std::ptr::null_mut();
        // SAFETY: ends the capture `plan` began on this thread.
        let rc = unsafe { (d.cuStreamEndCapture)(self.stream, &mut graph) };
        if rc != CUDA_SUCCESS || graph.is_null() || !ok {
            if !graph.is_null() {
                // SAFETY: the graph the capture produced, not instantiated.
                unsafe { (d.cuGraphDestroy)(graph) };
            }
            return Ok(false);
        }
        let mut exec: CUgraphExec = std::ptr::null_mut();
        // SAFETY: a complete captured graph; instantiation copies what it needs.
        let rc = unsafe { (d.cuGraphInstantiateWithFlags)(&mut exec, graph, 0) };
        // SAFETY: no longer needed once instantiated (or not).
        unsafe { (d.cuGraphDestroy)(graph) };
        if rc != CUDA_SUCCESS {
            return Ok(false);
        }
        let exec = Exec(exec);
        // SAFETY: the graph instantiated above, on XLA's stream.
        d.check(unsafe { (d.cuGraphLaunch)(exec.0, self.xla_stream) }, "cuGraphLaunch")?;
        graphs().keep(self.id, self.key, exec);
        Ok(true)
    }
}

impl Graphs {
    /// Keep `exec` for callable `id` at `key`, dropping the callable's oldest graph when it
    /// has [`PER_CALLABLE`] already.
    fn keep(&mut self, id: i64, key: Vec<usize>, exec: Exec) {
        let kept = self.execs.entry(id).or_default();
        if kept.len() >= PER_CALLABLE {
            kept.remove(0);
        }
        kept.push((key, exec));
    }

    fn forget(&mut self, id: i64) {
        self.execs.remove(&id);
        self.uncapturable.remove(&id);
    }

    fn count(&self) -> usize {
        self.execs.values().map(Vec::len).sum()
    }
}

/// Capture failed for callable `id` and an uncaptured run succeeded: stop capturing it.
pub fn mark_uncapturable(id: i64) {
    graphs().uncapturable.insert(id);
}

/// Drop everything kept for callable `id` (Python forgot it).
pub fn forget(id: i64) {
    graphs().forget(id);
}

/// Graphs kept, over all callables (for leak tests).
pub fn kept() -> usize {
    graphs().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_callable_keeps_its_newest_graphs_and_forgets_them_all() {
        // Null execs: dropping them asks the driver (if any) to destroy nothing.
        let mut g = Graphs::default();
        for k in 0..PER_CALLABLE + 3 {
            g.keep(1, vec![k], Exec(std::ptr::null_mut()));
        }
        g.keep(2, vec![0], Exec(std::ptr::null_mut()));
        assert_eq!(g.count(), PER_CALLABLE + 1);
        let keys: Vec<usize> = g.execs[&1].iter().map(|(k, _)| k[0]).collect();
        assert_eq!(keys, (3..PER_CALLABLE + 3).collect::<Vec<_>>());
        g.uncapturable.insert(1);
        g.forget(1);
        assert_eq!(g.count(), 1);
        assert!(g.uncapturable.is_empty());
    }
}
