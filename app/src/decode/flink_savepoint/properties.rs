//! The checkpoint properties a `_metadata` of format 4 and later ends with (Flink's
//! `MetadataV4Serializer`: one `CheckpointProperties` written by `ObjectOutputStream`). Read by a
//! bounded reader of Java's object stream grammar (`java.io.ObjectStreamConstants`) that knows
//! only what that object is made of: objects of serializable classes without custom write
//! methods, their primitive and object fields, strings, enums, null and back references. Anything
//! else is an error naming the field, and the caller keeps it as a named gap.

use serde::{Deserialize, Serialize};

use super::input::Input;
use crate::decode::DecodeError;

const TC_NULL: u8 = 0x70;
const TC_REFERENCE: u8 = 0x71;
const TC_CLASSDESC: u8 = 0x72;
const TC_OBJECT: u8 = 0x73;
const TC_STRING: u8 = 0x74;
const TC_ENDBLOCKDATA: u8 = 0x78;
const TC_ENUM: u8 = 0x7e;
const BASE_HANDLE: u32 = 0x7e_0000;
const SC_WRITE_METHOD: u8 = 0x01;
const SC_SERIALIZABLE: u8 = 0x02;
const SC_ENUM: u8 = 0x10;
/// Nesting the properties never need more than 3 of (properties → type → enum).
const MAX_DEPTH: usize = 8;
/// Objects, class descriptions and strings in one stream: the properties hold a dozen.
const MAX_HANDLES: usize = 256;
const MAX_FIELDS: usize = 64;
/// Bytes of values one stream may make: the properties are a few hundred. A back reference costs
/// five bytes of input and repeats a string of up to 64 KiB, and an object of a class read once
/// repeats its 64 field names: bounding only what the stream declares lets a 1 MB stream make
/// gigabytes, so what is made is counted too.
const MAX_PRODUCED: usize = 1 << 20;

/// What Flink's `CheckpointProperties` says of the checkpoint or savepoint that wrote the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointProperties {
    /// `SavepointType` or `CheckpointType` (Flink's `SnapshotType` classes).
    pub savepoint: bool,
    /// The type's name: "Savepoint", "Suspend Savepoint", "Terminate Savepoint", "Checkpoint",
    /// "Full Checkpoint".
    pub type_name: Option<String>,
    /// A savepoint's `SavepointFormatType`: CANONICAL (any state backend) or NATIVE.
    pub format_type: Option<String>,
    /// A savepoint's `PostCheckpointAction`: NONE, SUSPEND (stop-with-savepoint) or TERMINATE.
    pub post_checkpoint_action: Option<String>,
    /// A checkpoint's `SharingFilesStrategy`.
    pub sharing_files_strategy: Option<String>,
    pub forced: Option<bool>,
    /// Taken by Flink 1.15+ in CLAIM mode's opposite: the files are the user's, not Flink's.
    pub unclaimed: Option<bool>,
    pub discard_subsumed: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    Number(i64),
    Text(String),
    Enum { constant: String },
    Object { class: String, fields: Vec<(String, Value)> },
}

#[derive(Debug, Clone)]
struct ClassDesc {
    name: String,
    flags: u8,
    /// Primitive fields first in stream order, then object fields (as Java writes them).
    fields: Vec<(char, String)>,
    superclass: Option<usize>,
}

#[derive(Debug, Clone)]
enum Handle {
    Class(usize),
    Text(String),
    Enum(String),
    /// An object read whole before it could be referred to (the properties never refer back to one).
    Object,
}

struct Stream<'r, 'a> {
    r: &'r mut Input<'a>,
    classes: Vec<ClassDesc>,
    handles: Vec<Handle>,
    /// Bytes of values made so far (`MAX_PRODUCED`).
    produced: usize,
}

/// The properties from the bytes after Java serialization's magic (which the caller checked).
pub(super) fn read(r: &mut Input<'_>) -> Result<CheckpointProperties, DecodeError> {
    let mut s = Stream { r, classes: Vec::new(), handles: Vec::new(), produced: 0 };
    let value = s.content(0)?;
    let Value::Object { class, fields } = value else { return Err(s.r.err("", "is not an object")) };
    if class != "org.apache.flink.runtime.checkpoint.CheckpointProperties" {
        return Err(s.r.err("", format!("is a {class}, not Flink's CheckpointProperties")));
    }
    let get = |f: &[(String, Value)], k: &str| f.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let flag = |k: &str| match get(&fields, k) {
        Some(Value::Bool(b)) => Some(b),
        _ => None,
    };
    let mut props = CheckpointProperties {
        savepoint: false,
        type_name: None,
        format_type: None,
        post_checkpoint_action: None,
        sharing_files_strategy: None,
        forced: flag("forced"),
        unclaimed: flag("unclaimed"),
        discard_subsumed: flag("discardSubsumed"),
    };
    if let Some(Value::Object { class, fields: t }) = get(&fields, "checkpointType") {
        props.savepoint = class.ends_with(".SavepointType");
        let text = |k: &str| match get(&t, k) {
            Some(Value::Text(s)) => Some(s),
            Some(Value::Enum { constant }) => Some(constant),
            _ => None,
        };
        props.type_name = text("name");
        props.format_type = text("formatType");
        props.post_checkpoint_action = text("postCheckpointAction");
        props.sharing_files_strategy = text("sharingFilesStrategy");
    }
    Ok(props)
}

impl Stream<'_, '_> {
    /// Counts `n` bytes of values made, refusing the stream past `MAX_PRODUCED`.
    fn spend(&mut self, n: usize) -> Result<(), DecodeError> {
        self.produced = self.produced.saturating_add(n);
        if self.produced > MAX_PRODUCED {
            return Err(self.r.err("", format!("makes more than {MAX_PRODUCED} bytes of values (checkpoint properties make a few hundred): not read")));
        }
        Ok(())
    }

    fn new_handle(&mut self, h: Handle) -> Result<usize, DecodeError> {
        if self.handles.len() >= MAX_HANDLES {
            return Err(self.r.err("", format!("holds over {MAX_HANDLES} objects: not checkpoint properties")));
        }
        self.handles.push(h);
        Ok(self.handles.len() - 1)
    }

    fn reference(&mut self) -> Result<Handle, DecodeError> {
        let h = self.r.i32("reference")? as u32;
        let i = h.checked_sub(BASE_HANDLE).map(|i| i as usize).filter(|&i| i < self.handles.len());
        i.map(|i| self.handles[i].clone()).ok_or_else(|| self.r.err("reference", format!("0x{h:x} names no object read before it")))
    }

    /// A class description, or null (the end of a superclass chain), or a reference to one.
    fn class_desc(&mut self, depth: usize) -> Result<Option<usize>, DecodeError> {
        match self.r.u8("class")? {
            TC_NULL => Ok(None),
            TC_REFERENCE => match self.reference()? {
                Handle::Class(c) => Ok(Some(c)),
                _ => Err(self.r.err("class", "a reference to something that is not a class")),
            },
            TC_CLASSDESC => {
                if depth > MAX_DEPTH {
                    return Err(self.r.err("class", format!("nested over {MAX_DEPTH} deep")));
                }
                let name = self.r.utf("class.name")?;
                self.r.take("class.serialVersionUID", 8)?;
                let at = self.new_handle(Handle::Object)?;
                let flags = self.r.u8("class.flags")?;
                let b = self.r.take("class.fields", 2)?;
                let n = usize::from(u16::from_be_bytes([b[0], b[1]]));
                if n > MAX_FIELDS {
                    return Err(self.r.err("class.fields", format!("{n} fields: not checkpoint properties")));
                }
                let mut fields = Vec::with_capacity(n);
                for _ in 0..n {
                    let code = char::from(self.r.u8("field.type")?);
                    let field = self.r.utf("field.name")?;
                    if code == 'L' || code == '[' {
                        // The field's type name, as a string object.
                        self.string_or_reference(depth + 1)?;
                    } else if !"BCDFIJSZ".contains(code) {
                        return Err(self.r.err("field.type", format!("'{code}' is no Java field type")));
                    }
                    fields.push((code, field));
                }
                if self.r.u8("class.annotation")? != TC_ENDBLOCKDATA {
                    return Err(self.r.err("class.annotation", "a class annotation: not read"));
                }
                let superclass = self.class_desc(depth + 1)?;
                let c = self.classes.len();
                self.classes.push(ClassDesc { name, flags, fields, superclass });
                self.handles[at] = Handle::Class(c);
                Ok(Some(c))
            }
            t => Err(self.r.err("class", format!("type code 0x{t:02x}: not a class description"))),
        }
    }

    fn string_or_reference(&mut self, depth: usize) -> Result<String, DecodeError> {
        match self.content(depth)? {
            Value::Text(s) => Ok(s),
            _ => Err(self.r.err("string", "not a string")),
        }
    }

    fn content(&mut self, depth: usize) -> Result<Value, DecodeError> {
        if depth > MAX_DEPTH {
            return Err(self.r.err("", format!("nested over {MAX_DEPTH} deep")));
        }
        match self.r.u8("type")? {
            TC_NULL => Ok(Value::Null),
            TC_REFERENCE => {
                let h = self.reference()?;
                Ok(match h {
                    Handle::Text(s) => {
                        self.spend(s.len() + 1)?;
                        Value::Text(s)
                    }
                    Handle::Enum(c) => {
                        self.spend(c.len() + 1)?;
                        Value::Enum { constant: c }
                    }
                    Handle::Class(_) | Handle::Object => Value::Null,
                })
            }
            TC_STRING => {
                let s = self.r.utf("string")?;
                self.spend(s.len() + 1)?;
                self.new_handle(Handle::Text(s.clone()))?;
                Ok(Value::Text(s))
            }
            TC_ENUM => {
                let class = self.class_desc(depth + 1)?.ok_or_else(|| self.r.err("enum", "an enum without its class"))?;
                if self.classes[class].flags & SC_ENUM == 0 {
                    return Err(self.r.err("enum", format!("{} is not an enum class", self.classes[class].name)));
                }
                let at = self.new_handle(Handle::Object)?;
                let constant = self.string_or_reference(depth + 1)?;
                self.handles[at] = Handle::Enum(constant.clone());
                Ok(Value::Enum { constant })
            }
            TC_OBJECT => {
                let class = self.class_desc(depth + 1)?.ok_or_else(|| self.r.err("object", "an object without its class"))?;
                self.new_handle(Handle::Object)?;
                // Field values go from the topmost serializable superclass down.
                let mut chain = vec![class];
                while let Some(s) = self.classes[*chain.last().unwrap_or(&class)].superclass {
                    if chain.len() > MAX_DEPTH || chain.contains(&s) {
                        return Err(self.r.err("object", "a superclass chain that does not end"));
                    }
                    chain.push(s);
                }
                let mut fields = Vec::new();
                for &c in chain.iter().rev() {
                    let flags = self.classes[c].flags;
                    if flags & SC_SERIALIZABLE == 0 || flags & SC_WRITE_METHOD != 0 {
                        return Err(self.r.err("object", format!("{} is written by its own method: not read", self.classes[c].name)));
                    }
                    for k in 0..self.classes[c].fields.len() {
                        let (code, field) = self.classes[c].fields[k].clone();
                        self.spend(field.len() + 16)?;
                        let v = self.r.within(field.clone(), |r| primitive(r, code))?;
                        let v = match v {
                            Some(v) => v,
                            None => self.content(depth + 1)?,
                        };
                        fields.push((field, v));
                    }
                }
                let name = self.classes[class].name.clone();
                self.spend(name.len())?;
                Ok(Value::Object { class: name, fields })
            }
            t => Err(self.r.err("type", format!("type code 0x{t:02x}: not read in checkpoint properties"))),
        }
    }
}

/// A primitive field's value; None for an object field (read as content).
fn primitive(r: &mut Input<'_>, code: char) -> Result<Option<Value>, DecodeError> {
    let n = |r: &mut Input<'_>, k: usize| -> Result<i64, DecodeError> {
        let b = r.take("", k)?;
        Ok(b.iter().fold(0i64, |a, &x| (a << 8) | i64::from(x)))
    };
    Ok(Some(match code {
        'Z' => Value::Bool(r.u8("")? != 0),
        'B' => Value::Number(n(r, 1)?),
        'C' | 'S' => Value::Number(n(r, 2)?),
        'I' | 'F' => Value::Number(n(r, 4)?),
        'J' | 'D' => Value::Number(n(r, 8)?),
        _ => return Ok(None),
    }))
}
