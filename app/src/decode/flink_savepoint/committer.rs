//! The Iceberg committer's state in a savepoint, found by its state names:
//! - `FlinkSink` (`IcebergFilesCommitter`): list state `iceberg-flink-job-id` (one `String`, the job
//!   that wrote the state) and `iceberg-files-committer-state` (one `SortedMap<Long, byte[]>`: per
//!   checkpoint not yet known committed, its `DeltaManifests` in `SimpleVersionedSerialization`);
//! - `IcebergSink` (sink v2, Flink's `CommitterOperator`): list state `streaming_committer_raw_states`
//!   of `byte[]`, each a `CommittableCollector` whose commit requests carry `IcebergCommittable`s
//!   (job id, operator id, checkpoint id, the serialized manifests).

use serde::{Deserialize, Serialize};

use super::handles::{NamedState, OperatorStateHandle, StreamHandle};
use super::input::Input;
use super::list_state::{ElementInput, Layout};
use super::metadata::{CheckpointMetadata, OperatorState};
use crate::decode::DecodeError;

pub const FLINK_SINK_JOB_ID_STATE: &str = "iceberg-flink-job-id";
pub const FLINK_SINK_CHECKPOINTS_STATE: &str = "iceberg-files-committer-state";
pub const SINK_V2_COMMITTER_STATE: &str = "streaming_committer_raw_states";
const COLLECTOR_MAGIC: u32 = 0xb91f_252c;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SinkKind {
    /// `FlinkSink` and its `IcebergFilesCommitter`.
    FlinkSink,
    /// `IcebergSink` through Flink's sink-v2 `CommitterOperator`.
    SinkV2,
    /// `DynamicIcebergSink`: the same operator, committables that name their table.
    DynamicSink,
}

/// A committer found in a savepoint: which operator, which sink.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitterOperator {
    pub operator_index: usize,
    pub sink: SinkKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitterState {
    pub sink: SinkKind,
    pub operator_id: String,
    pub uid: Option<String>,
    pub name: Option<String>,
    /// The Flink job whose commits the restored committer will look for in the table.
    pub job_id: Option<String>,
    /// Checkpoints whose files the state still carries (FlinkSink keeps the last one even when it
    /// was committed: the restored committer checks the table before committing it again).
    pub pending_checkpoints: Vec<PendingCheckpoint>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCheckpoint {
    pub checkpoint_id: i64,
    /// Sink v2 committables name their own job and operator.
    pub job_id: Option<String>,
    pub operator_id: Option<String>,
    /// The temporary manifests the committer would commit (their paths).
    pub manifests: Vec<String>,
}

impl CommitterState {
    /// The operator id the table's commits carry as `flink.operator-id`: FlinkSink's committer
    /// writes its own; the sink-v2 committables carry the pre-commit aggregator's (read in the lab:
    /// IcebergSink's committer operator holds the state, its commits name the aggregator). None
    /// when a sink-v2 state holds no committable to say.
    pub fn table_operator_id(&self) -> Option<&str> {
        match self.sink {
            SinkKind::FlinkSink => Some(&self.operator_id),
            SinkKind::SinkV2 | SinkKind::DynamicSink => self.pending_checkpoints.iter().find_map(|p| p.operator_id.as_deref()),
        }
    }
}

/// Operators holding an Iceberg committer's state, by state name.
pub fn find_committers(meta: &CheckpointMetadata) -> Vec<CommitterOperator> {
    let mut out = Vec::new();
    for (i, op) in meta.operators.iter().enumerate() {
        let names = op.state_names();
        let has = |n: &str| names.iter().any(|s| s == n);
        if has(FLINK_SINK_JOB_ID_STATE) && has(FLINK_SINK_CHECKPOINTS_STATE) {
            out.push(CommitterOperator { operator_index: i, sink: SinkKind::FlinkSink });
        } else if has(SINK_V2_COMMITTER_STATE) && holds_elements(op, SINK_V2_COMMITTER_STATE) {
            // the sink-v2 writer registers the same name (for 1.14 migrations) but leaves it empty
            out.push(CommitterOperator { operator_index: i, sink: SinkKind::SinkV2 });
        }
    }
    out
}

fn holds_elements(op: &OperatorState, name: &str) -> bool {
    handles(op).any(|h| h.states.iter().any(|s| s.name == name && !s.offsets.is_empty()))
}

fn handles(op: &OperatorState) -> impl Iterator<Item = &OperatorStateHandle> {
    op.subtasks.iter().flat_map(|s| [&s.managed_operator_state, &s.raw_operator_state]).flatten()
}

/// The state files (not inline states) that the committer `found` reads, in handle order and as
/// often as handles name them: what a caller fetches, each file once, before `decode_committer`.
pub fn files_named<'m>(meta: &'m CheckpointMetadata, found: &CommitterOperator) -> Vec<&'m StreamHandle> {
    let Some(op) = meta.operators.get(found.operator_index) else { return Vec::new() };
    let mut out: Vec<&StreamHandle> = Vec::new();
    for h in handles(op).filter(|h| holds_committer_state(h, found.sink)) {
        if let Some(d) = &h.delegate {
            if !matches!(d, StreamHandle::Inline { .. }) {
                out.push(d);
            }
        }
    }
    out
}

fn holds_committer_state(h: &OperatorStateHandle, sink: SinkKind) -> bool {
    h.states.iter().any(|s| match sink {
        SinkKind::FlinkSink => s.name == FLINK_SINK_JOB_ID_STATE || s.name == FLINK_SINK_CHECKPOINTS_STATE,
        SinkKind::SinkV2 | SinkKind::DynamicSink => s.name == SINK_V2_COMMITTER_STATE,
    })
}

/// The bytes of one committer's streams icescope reads in all (a committer's state is kilobytes:
/// manifests' paths and a few ids). Each stream yields at most its own bytes (`Layout`); this
/// bounds a `_metadata` that names the same large file from many handles.
pub const MAX_COMMITTER_STREAM_BYTES: usize = 256 << 20;

/// Decodes the committer's state of `found`. `read_file` returns the bytes of a state file handle
/// (relative or absolute) or an error saying why it was not read; inline bytes need no reading.
pub fn decode_committer<'f>(
    file: &str,
    meta: &CheckpointMetadata,
    found: &CommitterOperator,
    read_file: &mut dyn FnMut(&StreamHandle) -> Result<&'f [u8], DecodeError>,
) -> Result<CommitterState, DecodeError> {
    let op = meta.operators.get(found.operator_index).ok_or_else(|| DecodeError::new(file, "operators", "the committer's operator is gone"))?;
    let mut st = CommitterState {
        sink: found.sink,
        operator_id: op.operator_id.clone(),
        uid: op.uid.clone(),
        name: op.name.clone(),
        job_id: None,
        pending_checkpoints: Vec::new(),
    };
    let mut streamed = 0usize;
    for h in handles(op) {
        let Some(delegate) = &h.delegate else { continue };
        if !holds_committer_state(h, found.sink) {
            continue;
        }
        let stream: &[u8] = match delegate {
            StreamHandle::Inline { bytes, .. } => bytes,
            other => read_file(other)?,
        };
        streamed = streamed.saturating_add(stream.len());
        if streamed > MAX_COMMITTER_STREAM_BYTES {
            return Err(DecodeError::new(
                file,
                &format!("operators[{}].state", found.operator_index),
                format!("the committer's state streams add up to more than {MAX_COMMITTER_STREAM_BYTES} bytes (a committer holds kilobytes): not read"),
            ));
        }
        let stream_file = match delegate {
            StreamHandle::RelativeFile { relative_path, .. } => relative_path.clone(),
            StreamHandle::File { path, .. } => path.clone(),
            _ => file.to_string(),
        };
        let layout = Layout::new(&stream_file, stream, &h.states)?;
        for state in &h.states {
            match (found.sink, state.name.as_str()) {
                (SinkKind::FlinkSink, FLINK_SINK_JOB_ID_STATE) => {
                    for id in layout.elements(state, |r| r.string("value"))?.into_iter().flatten() {
                        st.job_id.get_or_insert(id);
                    }
                }
                (SinkKind::FlinkSink, FLINK_SINK_CHECKPOINTS_STATE) => {
                    for map in layout.elements(state, sorted_map)? {
                        st.pending_checkpoints.extend(map);
                    }
                }
                (SinkKind::SinkV2 | SinkKind::DynamicSink, SINK_V2_COMMITTER_STATE) => {
                    for raw in layout.elements(state, |r| r.byte_array("value"))? {
                        st.pending_checkpoints.extend(collector(&stream_file, state, &raw, &mut st.sink)?);
                    }
                }
                _ => {}
            }
        }
    }
    if st.job_id.is_none() {
        st.job_id = st.pending_checkpoints.iter().find_map(|p| p.job_id.clone());
    }
    st.pending_checkpoints.sort_by_key(|p| p.checkpoint_id);
    Ok(st)
}

/// `SortedMapSerializer<Long, byte[]>`: a size, then per entry the key, a null flag and the value.
fn sorted_map(r: &mut ElementInput<'_>) -> Result<Vec<PendingCheckpoint>, DecodeError> {
    let n = r.count("map_size", 9)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let checkpoint_id = r.long("checkpoint_id")?;
        let manifests = if r.boolean("value_is_null")? { Vec::new() } else { delta_manifests(&r.byte_array("delta_manifests")?) };
        out.push(PendingCheckpoint { checkpoint_id, job_id: None, operator_id: None, manifests });
    }
    Ok(out)
}

/// The manifests' paths from a `SimpleVersionedSerialization` of Iceberg's `DeltaManifests`:
/// version, length, then a data and a delete manifest, each `ManifestFiles.encode`d (magic
/// `C2 01`, the Avro schema as `writeUTF`, then the Avro record whose first field is the
/// manifest's path). Anything else yields no path: the paths are evidence, not needed to decide.
fn delta_manifests(bytes: &[u8]) -> Vec<String> {
    let mut r = Input::new("", bytes);
    let mut out = Vec::new();
    let Ok(_version) = r.i32("version") else { return out };
    let Ok(body) = r.bytes_i32("length") else { return out };
    let mut b = Input::new("", body);
    for _ in 0..2 {
        let Ok(m) = b.bytes_i32("manifest") else { break };
        if let Some(p) = encoded_manifest_path(m) {
            out.push(p);
        }
    }
    out
}

fn encoded_manifest_path(m: &[u8]) -> Option<String> {
    if m.len() < 2 || m[..2] != [0xC2, 0x01] {
        return None;
    }
    let mut r = Input::new("", &m[2..]);
    let schema = r.utf("schema").ok()?;
    if !schema.contains("\"manifest_path\"") {
        return None;
    }
    let rest = &m[2 + r.pos()..];
    // Avro string: a zig-zag varint length, then UTF-8
    let (mut v, mut shift, mut i) = (0u64, 0u32, 0usize);
    loop {
        let b = *rest.get(i)?;
        v |= u64::from(b & 0x7F) << shift;
        i += 1;
        if b < 0x80 {
            break;
        }
        shift += 7;
        if shift > 56 {
            return None;
        }
    }
    let len = usize::try_from((v >> 1) as i64 ^ -((v & 1) as i64)).ok()?;
    let s = rest.get(i..i.checked_add(len)?)?;
    std::str::from_utf8(s).ok().map(str::to_string)
}

/// One `CommittableCollector` (Flink's `CommittableCollectorSerializer`, version 2): magic, then
/// checkpoints → subtasks → commit requests, each a `SimpleVersionedSerialization` list, the
/// request holding the sink's committable.
fn collector(file: &str, state: &NamedState, raw: &[u8], sink: &mut SinkKind) -> Result<Vec<PendingCheckpoint>, DecodeError> {
    let mut r = Input::new(file, raw).at(state.name.clone());
    let version = r.i32("version")?;
    let len = r.count("length", 1)?;
    let body = r.take("length", len)?;
    if version != 2 {
        return Err(r.err("version", format!("committable collector version {version} is not read (2: Flink 1.15 and later)")));
    }
    let mut r = Input::new(file, body).at(state.name.clone());
    let magic = r.i32("magic")? as u32;
    if magic != COLLECTOR_MAGIC {
        return Err(r.err("magic", format!("is {magic:#010x}, not {COLLECTOR_MAGIC:#010x}")));
    }
    let mut out = Vec::new();
    for cp in versioned_list(&mut r, "checkpoints")? {
        let mut c = Input::new(file, cp).at(format!("{}.checkpoints", state.name));
        let checkpoint_id = c.i64("checkpoint_id")?;
        c.i32("number_of_subtasks")?;
        let mut p = PendingCheckpoint { checkpoint_id, job_id: None, operator_id: None, manifests: Vec::new() };
        for sub in versioned_list(&mut c, "subtasks")? {
            let mut s = Input::new(file, sub).at(format!("{}.checkpoints.subtasks", state.name));
            s.i32("subtask_id")?;
            for req in versioned_list(&mut s, "requests")? {
                let mut q = Input::new(file, req).at(format!("{}.checkpoints.subtasks.requests", state.name));
                let version = q.i32("committable_version")?;
                let body = q.bytes_i32("committable_length")?;
                let mut k = Input::new(file, body).at(format!("{}.committable", state.name));
                let c = committable(&mut k, version)?;
                if c.checkpoint_id != checkpoint_id {
                    return Err(k.err("checkpoint_id", format!("is {} inside checkpoint {checkpoint_id}'s requests", c.checkpoint_id)));
                }
                if c.table.is_some() {
                    *sink = SinkKind::DynamicSink;
                }
                p.job_id = Some(c.job_id);
                p.operator_id = Some(c.operator_id);
                p.manifests.extend(c.manifests);
            }
        }
        out.push(p);
    }
    Ok(out)
}

struct Committable {
    table: Option<String>,
    job_id: String,
    operator_id: String,
    checkpoint_id: i64,
    manifests: Vec<String>,
}

/// `IcebergCommittable` (version 1: job id, operator id, checkpoint id, one manifest) or the
/// dynamic sink's `DynamicCommittable` (its table and branch first; version 2 carries several
/// manifests). Both version 1s begin with a `writeUTF`: a Flink job id is 32 hex digits, a table
/// name is not.
fn committable(k: &mut Input<'_>, version: i32) -> Result<Committable, DecodeError> {
    let first = k.utf("job_id_or_table")?;
    let is_job_id = first.len() == 32 && first.bytes().all(|b| b.is_ascii_hexdigit());
    if version == 1 && is_job_id {
        let operator_id = k.utf("operator_id")?;
        let checkpoint_id = k.i64("checkpoint_id")?;
        let manifests = delta_manifests(k.bytes_i32("manifest")?);
        return Ok(Committable { table: None, job_id: first, operator_id, checkpoint_id, manifests });
    }
    if version != 1 && version != 2 {
        return Err(k.err("committable_version", format!("committable version {version} is not one icescope reads (1, 2)")));
    }
    let _branch = k.utf("branch")?;
    let job_id = k.utf("job_id")?;
    let operator_id = k.utf("operator_id")?;
    let checkpoint_id = k.i64("checkpoint_id")?;
    let mut manifests = Vec::new();
    let n = if version == 2 { k.count("manifests", 4)? } else { 1 };
    for _ in 0..n {
        manifests.extend(delta_manifests(k.bytes_i32("manifest")?));
    }
    Ok(Committable { table: Some(first), job_id, operator_id, checkpoint_id, manifests })
}

/// `SimpleVersionedSerialization.writeVersionAndSerializeList`: version, count, then each item's length and bytes.
fn versioned_list<'a>(r: &mut Input<'a>, field: &str) -> Result<Vec<&'a [u8]>, DecodeError> {
    r.i32(field)?;
    let n = r.count(field, 4)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(r.bytes_i32(field)?);
    }
    Ok(out)
}
