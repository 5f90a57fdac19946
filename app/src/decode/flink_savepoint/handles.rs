//! The state handles inside a checkpoint's `_metadata`, as Flink's `MetadataV2V3SerializerBase`
//! lays them out: one type byte, then the handle. Operator (non-keyed) state handles are decoded
//! in full, state names and offsets included, because the Iceberg committer keeps its state there;
//! keyed handles are walked only to step over them (their bytes count, their contents do not here).

use serde::{Deserialize, Serialize};

use super::input::Input;
use crate::decode::DecodeError;

const NULL_HANDLE: u8 = 0;
const BYTE_STREAM: u8 = 1;
const FILE_STREAM: u8 = 2;
const KEY_GROUPS: u8 = 3;
const PARTITIONABLE_OPERATOR_STATE: u8 = 4;
const INCREMENTAL_KEY_GROUPS: u8 = 5;
const RELATIVE_STREAM: u8 = 6;
const SAVEPOINT_KEY_GROUPS: u8 = 7;
const CHANGELOG: u8 = 8;
const CHANGELOG_BYTE_INCREMENT: u8 = 9;
const CHANGELOG_FILE_INCREMENT: u8 = 10;
const INCREMENTAL_KEY_GROUPS_V2: u8 = 11;
const KEY_GROUPS_V2: u8 = 12;
const CHANGELOG_FILE_INCREMENT_V2: u8 = 13;
const CHANGELOG_V2: u8 = 14;

/// Keyed handles nest (a changelog handle holds keyed handles); a stranger's file could nest them
/// without end, so the walk stops at this depth.
const MAX_DEPTH: usize = 8;

/// Where a state's bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StreamHandle {
    /// In the `_metadata` file itself (`ByteStreamStateHandle`: small states, below Flink's
    /// `state.storage.fs.memory-threshold`, 20 KiB by default).
    Inline {
        name: String,
        #[serde(skip)]
        bytes: Vec<u8>,
        len: u64,
    },
    /// A file of the savepoint's own folder (`RelativeFileStateHandle`): savepoints are relocatable.
    RelativeFile { relative_path: String, size: i64 },
    /// A file named by its full path (`FileStateHandle`): checkpoints, and savepoints of old Flinks.
    File { path: String, size: i64 },
    /// A keyed handle where a stream handle was expected (a legacy layout): skipped.
    KeyGroups,
}

/// How a list state is spread over subtasks on restore (Flink's `OperatorStateHandle.Mode`, by ordinal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DistributionMode {
    SplitDistribute,
    Union,
    Broadcast,
    Unknown(u8),
}

/// One named operator state inside a handle: where each of its list elements starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedState {
    pub name: String,
    pub mode: DistributionMode,
    pub offsets: Vec<i64>,
}

/// `OperatorStreamStateHandle`: every named state of one subtask, and the stream holding them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperatorStateHandle {
    pub states: Vec<NamedState>,
    pub delegate: Option<StreamHandle>,
}

pub(crate) fn stream_handle(r: &mut Input<'_>, field: &str, depth: usize) -> Result<Option<StreamHandle>, DecodeError> {
    if depth > MAX_DEPTH {
        return Err(r.err(field, format!("state handles nest deeper than {MAX_DEPTH}")));
    }
    r.within(field, |r| {
        let kind = r.u8("type")?;
        Ok(match kind {
            NULL_HANDLE => None,
            BYTE_STREAM => {
                let name = r.utf("handle_name")?;
                let bytes = r.bytes_i32("data_length")?.to_vec();
                Some(StreamHandle::Inline { name, len: bytes.len() as u64, bytes })
            }
            FILE_STREAM => {
                let size = r.i64("state_size")?;
                let path = r.utf("file_path")?;
                Some(StreamHandle::File { path, size })
            }
            RELATIVE_STREAM => {
                let relative_path = r.utf("relative_path")?;
                let size = r.i64("state_size")?;
                Some(StreamHandle::RelativeFile { relative_path, size })
            }
            KEY_GROUPS => {
                key_group_offsets(r)?;
                stream_handle(r, "delegate", depth + 1)?;
                Some(StreamHandle::KeyGroups)
            }
            other => return Err(r.err("type", format!("stream state handle type {other} is not one Flink 1.18–2.2 writes (0, 1, 2, 3, 6)"))),
        })
    })
}

pub(crate) fn operator_state_handle(r: &mut Input<'_>, field: &str) -> Result<Option<OperatorStateHandle>, DecodeError> {
    r.within(field, |r| {
        let kind = r.u8("type")?;
        match kind {
            NULL_HANDLE => Ok(None),
            PARTITIONABLE_OPERATOR_STATE => {
                // a state: a name (2 bytes at least), a mode byte and an offset count
                let n = r.count("states", 7)?;
                let mut states = Vec::with_capacity(n);
                for i in 0..n {
                    states.push(r.within(format!("states[{i}]"), |r| {
                        let name = r.utf("name")?;
                        let mode = match r.u8("mode")? {
                            0 => DistributionMode::SplitDistribute,
                            1 => DistributionMode::Union,
                            2 => DistributionMode::Broadcast,
                            m => DistributionMode::Unknown(m),
                        };
                        let k = r.count("offsets", 8)?;
                        let mut offsets = Vec::with_capacity(k);
                        for _ in 0..k {
                            offsets.push(r.i64("offsets")?);
                        }
                        Ok(NamedState { name, mode, offsets })
                    })?);
                }
                let delegate = stream_handle(r, "delegate", 0)?;
                Ok(Some(OperatorStateHandle { states, delegate }))
            }
            other => Err(r.err("type", format!("operator state handle type {other} is not one Flink 1.18–2.2 writes (0 or 4)"))),
        }
    })
}

fn key_group_offsets(r: &mut Input<'_>) -> Result<(), DecodeError> {
    let _start = r.i32("start_key_group")?;
    let n = r.count("number_of_key_groups", 8)?;
    r.take("key_group_offsets", n * 8)?;
    Ok(())
}

/// Steps over one keyed state handle; returns whether there was one.
pub(crate) fn skip_keyed_handle(r: &mut Input<'_>, field: &str, depth: usize) -> Result<bool, DecodeError> {
    if depth > MAX_DEPTH {
        return Err(r.err(field, format!("keyed state handles nest deeper than {MAX_DEPTH}")));
    }
    r.within(field, |r| {
        let kind = r.u8("type")?;
        match kind {
            NULL_HANDLE => return Ok(false),
            KEY_GROUPS | KEY_GROUPS_V2 | SAVEPOINT_KEY_GROUPS => {
                key_group_offsets(r)?;
                stream_handle(r, "delegate", depth + 1)?;
                if kind == KEY_GROUPS_V2 {
                    r.utf("state_handle_id")?;
                }
            }
            INCREMENTAL_KEY_GROUPS | INCREMENTAL_KEY_GROUPS_V2 => {
                r.i64("checkpoint_id")?;
                r.utf("backend_id")?;
                r.i32("start_key_group")?;
                r.i32("number_of_key_groups")?;
                if kind == INCREMENTAL_KEY_GROUPS_V2 {
                    r.i64("checkpointed_size")?;
                }
                stream_handle(r, "meta_data_state_handle", depth + 1)?;
                for list in ["shared_state", "private_state"] {
                    let n = r.count(list, 3)?;
                    for i in 0..n {
                        r.within(format!("{list}[{i}]"), |r| {
                            r.utf("local_path")?;
                            stream_handle(r, "handle", depth + 1).map(|_| ())
                        })?;
                    }
                }
                if kind == INCREMENTAL_KEY_GROUPS_V2 {
                    r.utf("state_handle_id")?;
                }
            }
            CHANGELOG | CHANGELOG_V2 => {
                r.i32("start_key_group")?;
                r.i32("number_of_key_groups")?;
                r.i64("checkpointed_size")?;
                for list in ["materialized", "non_materialized"] {
                    let n = r.count(list, 1)?;
                    for i in 0..n {
                        skip_keyed_handle(r, &format!("{list}[{i}]"), depth + 1)?;
                    }
                }
                r.i64("materialization_id")?;
                if kind == CHANGELOG_V2 {
                    r.i64("checkpoint_id")?;
                }
                r.utf("state_handle_id")?;
            }
            CHANGELOG_BYTE_INCREMENT => {
                r.i32("start_key_group")?;
                r.i32("number_of_key_groups")?;
                r.i64("from")?;
                r.i64("to")?;
                let n = r.count("changes", 8)?;
                for _ in 0..n {
                    r.i32("key_group")?;
                    r.bytes_i32("change")?;
                }
                r.utf("state_handle_id")?;
            }
            CHANGELOG_FILE_INCREMENT | CHANGELOG_FILE_INCREMENT_V2 => {
                r.i32("start_key_group")?;
                r.i32("number_of_key_groups")?;
                let n = r.count("handles_and_offsets", 9)?;
                for i in 0..n {
                    r.i64("offset")?;
                    stream_handle(r, &format!("handles_and_offsets[{i}]"), depth + 1)?;
                }
                r.i64("state_size")?;
                r.i64("checkpointed_size")?;
                r.utf("state_handle_id")?;
                if kind == CHANGELOG_FILE_INCREMENT_V2 {
                    r.utf("storage_identifier")?;
                }
            }
            other => return Err(r.err("type", format!("keyed state handle type {other} is not one Flink 1.18–2.2 writes (0, 3, 5, 7–14)"))),
        }
        Ok(true)
    })
}

/// Steps over one collection of unaligned-checkpoint channel state handles; returns how many.
/// Format versions 3–5 write them without a type byte (Flink's `ChannelStateHandleSerializerV1`),
/// 6 and later with one, where types 3 and 4 are merged handles.
pub(crate) fn skip_channel_handles(r: &mut Input<'_>, field: &str, typed: bool) -> Result<usize, DecodeError> {
    r.within(field, |r| {
        let n = r.count("count", 9)?;
        for i in 0..n {
            r.within(format!("[{i}]"), |r| {
                let kind = if typed { r.u8("type")? } else { 1 };
                match kind {
                    1 | 2 => {
                        r.i32("subtask_index")?;
                        r.i32("gate_or_partition_index")?;
                        r.i32("channel_index")?;
                        let k = r.count("offsets", 8)?;
                        r.take("offsets", k * 8)?;
                        r.i64("state_size")?;
                        stream_handle(r, "delegate", 1)?;
                    }
                    3 | 4 => {
                        r.i32("subtask_index")?;
                        r.i64("state_size")?;
                        stream_handle(r, "delegate", 1)?;
                        r.bytes_i32("serialized_channel_offsets")?;
                    }
                    other => return Err(r.err("type", format!("channel state handle type {other} is unknown (1–4)"))),
                }
                Ok(())
            })?;
        }
        Ok(n)
    })
}
