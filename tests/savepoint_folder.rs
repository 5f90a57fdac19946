//! A savepoint folder that changes while it is read (Flink removes subsumed `chk-*` folders and
//! writes new ones while one reads; a stranger can swap a folder for a link): each folder is
//! opened once, as it was listed, its files relative to that opening; links, FIFOs and folders
//! replaced since the listing are refused by name, and a member that vanishes is a row, never the
//! command's failure. Inputs are copies of the lab's real savepoint S1 (Flink 2.1.1).

use std::path::{Path, PathBuf};
use std::process::Command;

use icescope::session::savepoint::read_savepoint;
use icescope::source::opened_folder::{Identity, OpenedFolder};

fn s1() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/savepoints/savepoint-resume/S1/_metadata")).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("icescope-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn read(folder: &Path, listed: Option<Identity>) -> Result<icescope::analysis::savepoint::SavepointRead, String> {
    let opened = OpenedFolder::open(folder, listed).map_err(|e| e.to_string())?;
    let shown = format!("{}/_metadata", folder.display());
    let name = folder.file_name().unwrap().to_string_lossy().into_owned();
    futures::executor::block_on(read_savepoint(&opened, &shown, &name)).map_err(|e| e.to_string())
}

/// A listed folder swapped for a link to another savepoint after the listing is not followed;
/// swapped for another real folder, it is refused by its identity; gone, it says so.
#[test]
fn a_folder_changed_after_listing_is_refused_not_followed() {
    let d = scratch("swap");
    let (chk, elsewhere, kept) = (d.join("chk-6"), d.join("elsewhere"), d.join("kept"));
    for f in [&chk, &elsewhere] {
        std::fs::create_dir_all(f).unwrap();
        std::fs::write(f.join("_metadata"), s1()).unwrap();
    }
    let listed = Identity::of(&chk);
    assert!(listed.is_some());
    assert_eq!(read(&chk, listed).unwrap().metadata.checkpoint_id, 6, "as listed, it reads");

    std::fs::rename(&chk, &kept).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &chk).unwrap();
    let e = read(&chk, listed).unwrap_err();
    assert!(e.contains("chk-6") && e.contains("is no longer the folder that was listed (now a link or a file): not read"), "{e}");

    std::fs::remove_file(&chk).unwrap();
    std::fs::create_dir(&chk).unwrap();
    std::fs::write(chk.join("_metadata"), s1()).unwrap();
    let e = read(&chk, listed).unwrap_err();
    assert!(e.contains("is no longer the folder that was listed (replaced while it was read): not read"), "{e}");

    std::fs::remove_dir_all(&chk).unwrap();
    let e = read(&chk, listed).unwrap_err();
    assert!(e.contains("was there when its folder was listed and is gone now (Flink removes subsumed checkpoints): not read"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A `_metadata` that is a link, or a FIFO (which would block a plain open for ever), is refused
/// by what was opened; a state file named by a handle is held to the same.
#[test]
fn links_and_fifos_inside_a_savepoint_are_refused_without_blocking() {
    let d = scratch("members");
    let (sp, outside) = (d.join("savepoint-a"), d.join("outside"));
    std::fs::create_dir_all(&sp).unwrap();
    std::fs::write(&outside, s1()).unwrap();
    std::os::unix::fs::symlink(&outside, sp.join("_metadata")).unwrap();
    let e = read(&sp, Identity::of(&sp)).unwrap_err();
    assert!(e.contains("savepoint-a/_metadata") && e.contains("is a symbolic link: not read"), "{e}");

    std::fs::remove_file(sp.join("_metadata")).unwrap();
    let status = Command::new("mkfifo").arg(sp.join("_metadata")).status().unwrap();
    assert!(status.success());
    let e = read(&sp, Identity::of(&sp)).unwrap_err();
    assert!(e.contains("savepoint-a/_metadata") && e.contains("is not a plain file: not read"), "{e}");

    // The CLI on the folder: the FIFO is not taken for a savepoint, and the command ends.
    let (code, out, err) = cli(&["savepoint", sp.to_str().unwrap()]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("no _metadata file here"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// While the CLI reads a folder of retained checkpoints, a writer removes and writes `chk-*`
/// folders as Flink does (in a loop, to meet the moments between listing and reading): every run
/// ends with the stable checkpoint read, and a folder that went away is at most a row saying so.
#[test]
fn checkpoints_subsumed_while_the_folder_is_read_are_rows() {
    let d = scratch("subsume");
    let stable = d.join("chk-6");
    std::fs::create_dir_all(&stable).unwrap();
    std::fs::write(stable.join("_metadata"), s1()).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (d, stop) = (d.clone(), stop.clone());
        std::thread::spawn(move || {
            let bytes = s1();
            let mut turns = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let chk = d.join("chk-7");
                let _ = std::fs::create_dir(&chk);
                let _ = std::fs::write(chk.join("_metadata"), &bytes);
                let _ = std::fs::remove_dir_all(&chk);
                turns += 1;
            }
            turns
        })
    };
    let mut rows_gone = 0;
    for _ in 0..40 {
        let (code, out, err) = cli(&["savepoint", d.to_str().unwrap(), "--format", "json"]);
        assert!(code == 0 || code == 1, "{code}: {out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let rows = v["savepoints"].as_array().unwrap();
        assert!(rows.iter().any(|r| r["savepoint"]["path"].as_str().unwrap().ends_with("chk-6/_metadata")), "{out}");
        for u in v["unreadable"].as_array().unwrap() {
            let e = u["error"].as_str().unwrap();
            assert!(u["path"].as_str().unwrap().contains("chk-7"), "{u}");
            assert!(
                e.contains("gone now") || e.contains("could not be listed") || e.contains("No such file") || e.contains("cut short") || e.contains("field `"),
                "a vanishing folder's row says why: {e}"
            );
            rows_gone += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let turns = writer.join().unwrap();
    assert!(turns > 40, "the writer ran while the folder was read ({turns} turns)");
    eprintln!("{rows_gone} runs met chk-7 half there, {turns} writer turns");
    std::fs::remove_dir_all(&d).unwrap();
}
