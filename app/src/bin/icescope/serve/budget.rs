//! What `icescope serve` holds of answers at once. The transport bounds the bodies being received
//! (`transport::IN_FLIGHT_BYTES`); once received they are the relay's until the page has them, so
//! they are counted here: a batch stops taking files past `BATCH_BYTES` (the page reads the rest
//! one by one), and no answer is built past `TOTAL_BYTES` held in all (the page is told to ask
//! again), so that a store feeding large objects, slowly or all at once, cannot exhaust memory.

use std::sync::atomic::{AtomicU64, Ordering};

/// A `/relay/files` answer's bytes: manifests and manifest lists are kilobytes to megabytes.
pub const BATCH_BYTES: u64 = 64 << 20;
/// Every answer being built or sent at once.
pub const TOTAL_BYTES: u64 = 1 << 30;

static HELD: AtomicU64 = AtomicU64::new(0);

/// Bytes of answers counted as held until this is dropped (with the answer, after it was sent).
#[derive(Debug, Default)]
pub struct Held(u64);

impl Held {
    /// `n` bytes more, or None (and nothing taken) when they would pass `TOTAL_BYTES`.
    pub fn take(&mut self, n: u64) -> bool {
        let taken = HELD.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |held| held.checked_add(n).filter(|&t| t <= TOTAL_BYTES));
        if taken.is_ok() {
            self.0 += n;
        }
        taken.is_ok()
    }

    pub fn bytes(&self) -> u64 {
        self.0
    }

    /// What is held by every answer now.
    pub fn all() -> u64 {
        HELD.load(Ordering::SeqCst)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.fetch_sub(self.0, Ordering::SeqCst);
    }
}

/// An answer's bytes and what they hold: dropped by the server once written.
pub struct Owned {
    pub body: Vec<u8>,
    /// Given back when the server drops the bytes.
    pub _held: Held,
}

impl AsRef<[u8]> for Owned {
    fn as_ref(&self) -> &[u8] {
        &self.body
    }
}
