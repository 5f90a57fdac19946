//! The inspect report as the terminal and the ticket read it.

pub mod markdown;
pub mod text;
