//! Where decoding runs, injected like the transport: `Inline` decodes on the calling thread (the
//! CLI, native tests); the browser passes its decoder worker (`view::app::decoder`), so that a
//! third-party decoder's panic or hang ends the worker, not the page.

use std::future::Future;

use crate::decode::job::{run, Decoded, Job};

/// Runs decode jobs. An error is a message that begins with the file's path.
pub trait Decoder {
    fn decode(&self, job: Job) -> impl Future<Output = Result<Decoded, String>>;
}

/// Decodes on the calling thread, at once.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inline;

impl Decoder for Inline {
    async fn decode(&self, job: Job) -> Result<Decoded, String> {
        run(job).map_err(|e| e.to_string())
    }
}

impl<D: Decoder> Decoder for &D {
    fn decode(&self, job: Job) -> impl Future<Output = Result<Decoded, String>> {
        (**self).decode(job)
    }
}

/// What a reply of the wrong kind says (a worker answering another job): never expected.
pub(crate) fn unexpected(path: &str, wanted: &str) -> String {
    format!("{path}: the decoder answered with something other than {wanted}")
}
