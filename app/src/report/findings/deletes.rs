//! Delete files piling up with checkpoints.

use super::Words;
use crate::analysis::findings::DeleteDebt;
use crate::report::format::{plural, thousands};

pub(super) fn delete_debt(f: &DeleteDebt) -> Words {
    let vectors = match (f.deletion_vectors, f.deletion_vector_files) {
        (0, _) => String::new(),
        (v, p) => format!(" (the {} deletion vectors sit in {} Puffin file{})", thousands(v), thousands(p), plural(p)),
    };
    // An unknown scan count has always printed as the largest number: kept so the words stay put.
    let opened = f.scan_files.unwrap_or(u64::MAX);
    let mut evidence = format!(
        "{} delete files are live ({} position, {} equality, {} deletion vectors) over {} data file{}: a full scan opens {} \
         files{vectors}. Delete files grew in {} of the last {} commits.",
        thousands(f.delete_files),
        thousands(f.position_delete_files),
        thousands(f.equality_delete_files),
        thousands(f.deletion_vectors),
        thousands(f.data_files),
        plural(f.data_files),
        thousands(opened),
        f.grew_in_commits,
        f.commits
    );
    if f.equality_delete_files > 0 {
        evidence.push_str(" rewrite_position_delete_files cannot touch equality deletes; only a data-file rewrite applies them.");
    }
    if f.dangling_deletes > 0 {
        evidence += &format!(
            " {} of them apply to no live data file (every data file is newer than the delete): a data-file rewrite \
             left them behind, and readers still open them.",
            thousands(f.dangling_deletes)
        );
    }
    Words {
        title: format!("Delete debt: {} delete files on {} data file{}", thousands(f.delete_files), thousands(f.data_files), plural(f.data_files)),
        evidence,
        action: format!(
            "Rewrite the data files with a delete threshold of one, {}, and remove dangling deletes in the same call: the \
             rewrite applies deletes of every kind, but without remove-dangling-deletes the deletes it applied stay in the table.",
            if f.streaming { "every N checkpoints" } else { "after the batches that delete" }
        ),
    }
}
