//! A per-thread pool of `f64` buffers for the PMFs and tail CDFs the simulator builds and
//! throws away at every mapping event.
//!
//! A machine's chain of completion-time PMFs is recomputed whenever its executing task
//! changes, and the chain it replaces is dropped at the same moment: the new chain's buffers
//! are the old chain's. Without the pool every PCT went through `calloc` and `free`, about
//! 15% of a batch heuristic's instructions (callgrind, MM at 34k); with it, a buffer is
//! taken from and given back to a short per-thread list.
//!
//! Only memory is shared: a buffer is cleared (and zeroed where the caller needs zeros)
//! before use, so values never depend on which buffer a PMF gets. The pool is bounded
//! ([`MAX_BUFFERS`] buffers and [`MAX_BYTES`] bytes per thread); a buffer beyond either
//! bound, or too small to be worth keeping, is freed as usual.

use std::cell::RefCell;

/// At most this many buffers are kept per thread.
pub const MAX_BUFFERS: usize = 64;
/// At most this many bytes of buffer capacity are kept per thread.
pub const MAX_BYTES: usize = 8 << 20;
/// Buffers with room for fewer values than this are not kept.
const MIN_CAPACITY: usize = 16;

#[derive(Default)]
struct Pool {
    buffers: Vec<Vec<f64>>,
    bytes: usize,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
}

fn take() -> Option<Vec<f64>> {
    POOL.try_with(|p| {
        let mut p = p.try_borrow_mut().ok()?;
        let v = p.buffers.pop()?;
        p.bytes -= v.capacity() * size_of::<f64>();
        Some(v)
    })
    .ok()
    .flatten()
}

/// An empty buffer with room for at least `capacity` values.
pub(crate) fn with_capacity(capacity: usize) -> Vec<f64> {
    match take() {
        Some(mut v) => {
            v.clear();
            v.reserve(capacity);
            v
        }
        None => Vec::with_capacity(capacity),
    }
}

/// `len` zeros (as `vec![0.0; len]`).
pub(crate) fn zeroed(len: usize) -> Vec<f64> {
    match take() {
        Some(mut v) => {
            v.clear();
            v.resize(len, 0.0);
            v
        }
        None => vec![0.0; len],
    }
}

/// Gives a buffer back to this thread's pool (or frees it when the pool is full).
pub(crate) fn recycle(v: Vec<f64>) {
    let bytes = v.capacity() * size_of::<f64>();
    if v.capacity() < MIN_CAPACITY || bytes > MAX_BYTES {
        return;
    }
    // During thread teardown the pool may be gone: the buffer is then simply freed.
    let _ = POOL.try_with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            if p.buffers.len() < MAX_BUFFERS && p.bytes + bytes <= MAX_BYTES {
                p.bytes += bytes;
                p.buffers.push(v);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pooled() -> (usize, usize) {
        POOL.with(|p| {
            let p = p.borrow();
            (p.buffers.len(), p.bytes)
        })
    }

    #[test]
    fn buffers_are_reused_cleared_and_bounded() {
        // Drain whatever other tests on this thread left.
        while take().is_some() {}
        assert_eq!(pooled(), (0, 0));
        let mut v = vec![7.0; 100];
        v.truncate(50);
        let ptr = v.as_ptr();
        recycle(v);
        assert_eq!(pooled(), (1, 100 * 8));
        // The same memory comes back, zeroed to the requested length.
        let z = zeroed(80);
        assert_eq!(z.as_ptr(), ptr);
        assert_eq!(z, vec![0.0; 80]);
        assert_eq!(pooled(), (0, 0));
        recycle(z);
        let e = with_capacity(10);
        assert!(e.is_empty() && e.capacity() >= 100);
        // Small buffers are not kept; nor more than MAX_BUFFERS.
        recycle(vec![1.0; 3]);
        assert_eq!(pooled(), (0, 0));
        for _ in 0..MAX_BUFFERS + 5 {
            recycle(vec![0.0; 32]);
        }
        assert_eq!(pooled(), (MAX_BUFFERS, MAX_BUFFERS * 32 * 8));
        // Nor a buffer that would pass MAX_BYTES.
        while take().is_some() {}
        recycle(Vec::with_capacity(MAX_BYTES / 8 + 1));
        assert_eq!(pooled(), (0, 0));
        drop(e);
    }
}
