//! Where decoding runs, injected like the transport: `Inline` decodes on the calling thread (the
//! CLI, native tests); the browser passes its decoder worker (`view::app::decoder`), so that a
//! third-party decoder's panic or hang ends the worker, not the page.

use std::future::Future;

use crate::decode::job::{run, Decoded, Job};
use crate::decode::DecodeError;

/// Runs decode jobs. An error names the file (and the field, where the decoder got that far).
pub trait Decoder {
    fn decode(&self, job: Job) -> impl Future<Output = Result<Decoded, DecodeError>>;
    /// Reads a source's folder itself (`Job::Read`, `Fetch::in_folder`): the browser's workers,
    /// handed a picked folder's handle.
    fn reads_folders(&self) -> bool {
        false
    }
    /// Decodes on the calling thread, so a file can be decoded as it is read
    /// (`Fetch::fetch_reader`): the CLI streams a 16 MB metadata.json instead of holding it twice.
    fn decodes_here(&self) -> bool {
        false
    }
}

/// Decodes on the calling thread, at once.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inline;

impl Decoder for Inline {
    async fn decode(&self, job: Job) -> Result<Decoded, DecodeError> {
        run(job)
    }

    fn decodes_here(&self) -> bool {
        true
    }
}

impl<D: Decoder> Decoder for &D {
    fn decode(&self, job: Job) -> impl Future<Output = Result<Decoded, DecodeError>> {
        (**self).decode(job)
    }

    fn reads_folders(&self) -> bool {
        (**self).reads_folders()
    }

    fn decodes_here(&self) -> bool {
        (**self).decodes_here()
    }
}

/// What a reply of the wrong kind says (a worker answering another job): never expected.
pub(crate) fn unexpected(path: &str, wanted: &str) -> String {
    format!("{path}: the decoder answered with something other than {wanted}")
}
