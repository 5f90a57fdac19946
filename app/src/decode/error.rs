use std::fmt;

/// Every decode failure names the file it came from and the field that was wrong, because the
/// person reading it has to find that file in a bucket and open it. A message may name its field
/// itself as the subject of its sentence ("field `x.y` is missing"): it is then printed as it is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DecodeError {
    pub file: String,
    pub field: String,
    pub message: String,
}

impl DecodeError {
    pub fn new(file: &str, field: &str, message: impl Into<String>) -> Self {
        DecodeError { file: file.to_string(), field: field.to_string(), message: message.into() }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() || self.message.starts_with(&format!("field `{}`", self.field)) {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: field `{}`: {}", self.file, self.field, self.message)
        }
    }
}

impl std::error::Error for DecodeError {}
