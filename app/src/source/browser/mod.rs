//! The browser's sources, beside the others: `fetch` is the transport the remote code sends
//! through (with the one error a browser hides, CORS), `files` the tables opened in a page
//! (picked or dropped files, the bundled examples served beside the app, a remote table).

pub mod dropped;
pub mod fetch;
pub mod files;
pub mod follow;
pub mod handle;
mod picked_read;
pub mod relay;
pub mod savepoint_files;
