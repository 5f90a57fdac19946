//! A damaged newest metadata.json: the folder opens at the newest version that reads, and the
//! pick says which file did not read and why. On the lab's savepoint-twice run (20 versions), its
//! newest file damaged three ways a copy or a crash leaves one.

use std::path::{Path, PathBuf};

use icescope::load::{load_pick, pick_metadata};
use icescope::model::ReadMode;
use icescope::source::local::LocalFolder;
use serde_json::Value;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn damaged(how: &str, damage: impl FnOnce(Vec<u8>) -> Vec<u8>) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice");
    let dir = std::env::temp_dir().join(format!("icescope-fallback-{}-{how}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&src, &dir);
    let newest = dir.join("metadata/v20.metadata.json");
    let bytes = std::fs::read(&newest).unwrap();
    std::fs::write(&newest, damage(bytes)).unwrap();
    dir
}

#[test]
fn the_newest_that_reads_is_opened_and_the_damaged_one_is_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice/metadata");
    let v19: Value = serde_json::from_slice(&std::fs::read(root.join("v19.metadata.json")).unwrap()).unwrap();
    let cases: [(&str, Box<dyn FnOnce(Vec<u8>) -> Vec<u8>>, &str); 3] = [
        ("cut", Box::new(|b: Vec<u8>| b[..b.len() / 2].to_vec()), "metadata/v20.metadata.json"),
        (
            "garbled",
            Box::new(|mut b: Vec<u8>| {
                let mid = b.len() / 2;
                b[mid..mid + 64].fill(0xff);
                b
            }),
            "metadata/v20.metadata.json",
        ),
        ("schema", Box::new(|b: Vec<u8>| String::from_utf8(b).unwrap().replacen("\"snapshots\"", "\"snapshots\": 7, \"x\"", 1).into_bytes()), "snapshots"),
    ];
    for (how, damage, named) in cases {
        let dir = damaged(how, damage);
        let folder = LocalFolder::open(&dir).unwrap();
        let mut pick = futures::executor::block_on(pick_metadata(&folder)).unwrap();
        assert_eq!(pick.path, "metadata/v20.metadata.json", "{how}: its head still says it is the newest");
        let loader = load_pick(&folder, &mut pick, ReadMode::All, false).unwrap_or_else(|e| panic!("{how}: {e}"));
        assert_eq!(loader.history.metadata_file, "metadata/v19.metadata.json", "{how}");
        assert_eq!(loader.history.snapshots.len(), v19["snapshots"].as_array().unwrap().len(), "{how}");
        assert_eq!(pick.path, "metadata/v19.metadata.json");
        assert_eq!(pick.unreadable.len(), 1, "{how}");
        assert_eq!(pick.unreadable[0].0, "metadata/v20.metadata.json");
        assert!(pick.unreadable[0].1.contains(named), "{how}: {}", pick.unreadable[0].1);
        assert!(pick.why.starts_with("the newest metadata file that reads: 1 newer one does not (metadata/v20.metadata.json: "), "{how}: {}", pick.why);
        assert_eq!(pick.why.matches("v20.metadata.json").count(), 1, "the file is named once: {}", pick.why);
        assert!(pick.why.ends_with("the table is shown as v19.metadata.json left it"), "{}", pick.why);
        // The CLI opens it too, and says so in its report.
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_icescope")).args(["inspect", dir.to_str().unwrap(), "--format", "json"]).output().unwrap();
        assert!(out.status.success(), "{how}: {}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["load"]["metadata_pick"]["unreadable"][0][0], "metadata/v20.metadata.json");
        // A file named with --metadata is not replaced: its failure is the answer.
        let named = std::process::Command::new(env!("CARGO_BIN_EXE_icescope"))
            .args(["inspect", dir.to_str().unwrap(), "--metadata", "v20.metadata.json", "--format", "json"])
            .output()
            .unwrap();
        assert!(!named.status.success(), "{how}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
