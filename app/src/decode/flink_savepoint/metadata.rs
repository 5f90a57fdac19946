//! A Flink checkpoint's or savepoint's `_metadata` file (Flink's `Checkpoints` and
//! `MetadataV*Serializer`): magic `0x4960672d`, format version, then checkpoint id, master states
//! and operator states. Versions 3–7 share one layout with additions: 4 appends the checkpoint
//! properties (Java serialization, read by `properties`; what it cannot read is a named gap), 5 puts each operator's name and uid
//! first, 6 types its channel-state handles, 7 ends each subtask with an optional reference
//! checkpoint id.

use serde::{Deserialize, Serialize};

use super::handles::{operator_state_handle, skip_channel_handles, skip_keyed_handle, stream_handle, OperatorStateHandle, StreamHandle};
use super::input::Input;
use crate::decode::DecodeError;

pub const MAGIC: u32 = 0x4960_672d;
const MASTER_STATE_MAGIC: u32 = 0xc96b_1696;
const JAVA_SERIALIZATION_MAGIC: [u8; 4] = [0xac, 0xed, 0x00, 0x05];
/// A `_metadata` above this is refused before it is read: Flink's own are kilobytes to a few
/// megabytes (inline state is capped by `state.storage.fs.memory-threshold`, at most 1 MiB each).
pub const MAX_METADATA_BYTES: u64 = 256 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointMetadata {
    pub format_version: u32,
    pub checkpoint_id: i64,
    pub master_states: Vec<MasterState>,
    pub operators: Vec<OperatorState>,
    /// The trailing checkpoint properties' size (format 4 and later).
    pub properties_bytes: u64,
    /// What they say (format 4 and later), where they read.
    pub properties: Option<super::properties::CheckpointProperties>,
    /// What this decoder read past but could not interpret (never silently dropped).
    pub gaps: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MasterState {
    pub name: String,
    pub version: i32,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperatorState {
    /// Flink's `OperatorID` as its REST API and Iceberg's `flink.operator-id` print it (32 hex digits).
    pub operator_id: String,
    /// Only format version 5 and later carry these, and only when the job set them.
    pub name: Option<String>,
    pub uid: Option<String>,
    pub parallelism: i32,
    pub max_parallelism: i32,
    /// Every subtask finished (a bounded source that ended): no subtask states follow.
    pub fully_finished: bool,
    pub has_coordinator_state: bool,
    pub subtasks: Vec<SubtaskState>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubtaskState {
    pub index: i32,
    pub finished: bool,
    pub managed_operator_state: Option<OperatorStateHandle>,
    pub raw_operator_state: Option<OperatorStateHandle>,
    pub keyed_handles: u32,
    pub channel_handles: u32,
}

impl OperatorState {
    /// Every operator-state name any subtask holds, once each, in first-seen order.
    pub fn state_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.subtasks {
            for h in [&s.managed_operator_state, &s.raw_operator_state].into_iter().flatten() {
                for n in &h.states {
                    if !out.contains(&n.name) {
                        out.push(n.name.clone());
                    }
                }
            }
        }
        out
    }
}

pub fn decode_checkpoint_metadata(file: &str, bytes: &[u8]) -> Result<CheckpointMetadata, DecodeError> {
    if bytes.len() as u64 > MAX_METADATA_BYTES {
        return Err(DecodeError::new(file, "", format!("is {} bytes, above the {MAX_METADATA_BYTES} icescope reads as a checkpoint's _metadata", bytes.len())));
    }
    let mut r = Input::new(file, bytes);
    let magic = r.i32("magic")? as u32;
    if magic != MAGIC {
        return Err(r.err("magic", format!("is {magic:#010x}, not Flink's {MAGIC:#010x}: not a checkpoint or savepoint _metadata file")));
    }
    let version = r.i32("version")?;
    let format_version = match version {
        3..=7 => version as u32,
        v => return Err(r.err("version", format!("checkpoint metadata format {v} is not one icescope reads (3–7: Flink 1.11 to 2.2)"))),
    };
    let checkpoint_id = r.i64("checkpoint_id")?;
    if checkpoint_id < 0 {
        return Err(r.err("checkpoint_id", format!("is {checkpoint_id}: negative")));
    }
    let n = r.count("master_states", 8)?;
    let mut master_states = Vec::with_capacity(n);
    for i in 0..n {
        master_states.push(r.within(format!("master_states[{i}]"), master_state)?);
    }
    // an operator: at least its id, parallelisms, coordinator handle and subtask count
    let n = r.count("operators", 29)?;
    let mut operators = Vec::with_capacity(n);
    for i in 0..n {
        operators.push(r.within(format!("operators[{i}]"), |r| operator_state(r, format_version))?);
    }
    let (mut gaps, mut properties) = (Vec::new(), None);
    let properties_bytes = r.remaining() as u64;
    if format_version >= 4 {
        // Format 4 and later end with the checkpoint properties as one Java-serialized object.
        let magic = r.take("checkpoint_properties", 4.min(r.remaining()))?;
        if magic != JAVA_SERIALIZATION_MAGIC {
            return Err(r.err(
                "checkpoint_properties",
                format!("starts {magic:02x?}, not Java serialization's ac ed 00 05: the file is cut short or was not written by Flink"),
            ));
        }
        let mut rest = Input::new(r.file(), r.tail_from(r.pos())).at("checkpoint_properties".into());
        match super::properties::read(&mut rest) {
            Ok(p) => properties = Some(p),
            Err(e) => gaps.push(format!("the checkpoint properties ({properties_bytes} bytes of Java serialization after the operators) are not read: {e}")),
        }
    } else if properties_bytes > 0 {
        return Err(r.err("operators", format!("{properties_bytes} bytes follow the last operator")));
    }
    Ok(CheckpointMetadata { format_version, checkpoint_id, master_states, operators, properties_bytes, properties, gaps })
}

fn master_state(r: &mut Input<'_>) -> Result<MasterState, DecodeError> {
    let magic = r.i32("magic")? as u32;
    if magic != MASTER_STATE_MAGIC {
        return Err(r.err("magic", format!("is {magic:#010x}, not the master state's {MASTER_STATE_MAGIC:#010x}")));
    }
    let len = r.count("length", 1)?;
    let body = r.take("length", len)?;
    let mut m = Input::new(r.file(), body);
    let version = m.i32("version").map_err(|e| r.err("version", e.message))?;
    let name = m.utf("name").map_err(|e| r.err("name", e.message))?;
    let data = m.bytes_i32("bytes").map_err(|e| r.err("bytes", e.message))?;
    if m.remaining() > 0 {
        return Err(r.err("length", format!("{} bytes follow the master state's payload", m.remaining())));
    }
    Ok(MasterState { name, version, bytes: data.len() as u64 })
}

fn operator_state(r: &mut Input<'_>, version: u32) -> Result<OperatorState, DecodeError> {
    let (name, uid) = if version >= 5 {
        let name = r.utf("name")?;
        let uid = r.utf("uid")?;
        (Some(name).filter(|s| !s.is_empty()), Some(uid).filter(|s| !s.is_empty()))
    } else {
        (None, None)
    };
    let lower = r.i64("operator_id")?;
    let upper = r.i64("operator_id")?;
    // Flink's AbstractID prints the lower part's 8 bytes, then the upper part's.
    let operator_id = format!("{:016x}{:016x}", lower as u64, upper as u64);
    let parallelism = r.i32("parallelism")?;
    let max_parallelism = r.i32("max_parallelism")?;
    let coordinator = stream_handle(r, "coordinator_state", 0)?;
    if matches!(coordinator, Some(ref h) if !matches!(h, StreamHandle::Inline { .. })) {
        return Err(r.err("coordinator_state", "is not an inline (byte stream) handle, which is all Flink writes there"));
    }
    let n = r.i32("subtask_states")?;
    let mut op = OperatorState {
        operator_id,
        name,
        uid,
        parallelism,
        max_parallelism,
        fully_finished: n < 0,
        has_coordinator_state: coordinator.is_some(),
        subtasks: Vec::new(),
    };
    if n < 0 {
        return Ok(op);
    }
    // a subtask: its index at least
    let n = r.check_count("subtask_states", n, 4)?;
    op.subtasks.reserve(n);
    for i in 0..n {
        op.subtasks.push(r.within(format!("subtasks[{i}]"), |r| subtask_state(r, version))?);
    }
    Ok(op)
}

fn subtask_state(r: &mut Input<'_>, version: u32) -> Result<SubtaskState, DecodeError> {
    let stored = r.i32("index")?;
    // A finished subtask is stored as -(index + 1) and has no state.
    let (index, finished) = if stored < 0 { (-(stored.saturating_add(1)), true) } else { (stored, false) };
    let mut s = SubtaskState { index, finished, managed_operator_state: None, raw_operator_state: None, keyed_handles: 0, channel_handles: 0 };
    if finished {
        return Ok(s);
    }
    if r.i32("has_managed_operator_state")? != 0 {
        s.managed_operator_state = operator_state_handle(r, "managed_operator_state")?;
    }
    if r.i32("has_raw_operator_state")? != 0 {
        s.raw_operator_state = operator_state_handle(r, "raw_operator_state")?;
    }
    for field in ["managed_keyed_state", "raw_keyed_state"] {
        if skip_keyed_handle(r, field, 0)? {
            s.keyed_handles += 1;
        }
    }
    let typed = version >= 6;
    s.channel_handles += skip_channel_handles(r, "input_channel_state", typed)? as u32;
    s.channel_handles += skip_channel_handles(r, "result_subpartition_state", typed)? as u32;
    if version >= 7 && r.u8("has_ref_checkpoint_id")? == 1 {
        r.i64("ref_checkpoint_id")?;
    }
    Ok(s)
}
