//! Schemas, partition specs and sort orders from table metadata.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Binary formats (postcard, between the page and its decoder worker) cannot read untagged or
/// self-describing shapes back (`Type`, a sort order's fields): there these travel as their JSON.
/// The derived (JSON) forms are the inherent `serialize`/`deserialize` of `#[serde(remote = "Self")]`.
macro_rules! json_in_binary {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    <$t>::serialize(self, s)
                } else {
                    s.serialize_str(&serde_json::to_string(self).map_err(serde::ser::Error::custom)?)
                }
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                if d.is_human_readable() {
                    <$t>::deserialize(d)
                } else {
                    serde_json::from_str(&String::deserialize(d)?).map_err(serde::de::Error::custom)
                }
            }
        }
    };
}

json_in_binary!(Schema);
json_in_binary!(SortOrder);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Schema {
    #[serde(rename = "schema-id", default)]
    pub schema_id: i32,
    #[serde(default)]
    pub fields: Vec<NestedField>,
    #[serde(rename = "identifier-field-ids", default)]
    pub identifier_field_ids: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NestedField {
    pub id: i32,
    pub name: String,
    #[serde(default)]
    pub required: bool,
    #[serde(rename = "type")]
    pub field_type: Type,
    #[serde(default)]
    pub doc: Option<String>,
}

/// A field type: a primitive name (`long`, `decimal(9,2)`, …) or a nested struct, list or map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Type {
    Primitive(String),
    Nested(Box<NestedType>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum NestedType {
    Struct {
        #[serde(default)]
        fields: Vec<NestedField>,
    },
    List {
        #[serde(rename = "element-id")]
        element_id: i32,
        element: Type,
        #[serde(rename = "element-required", default)]
        element_required: bool,
    },
    Map {
        #[serde(rename = "key-id")]
        key_id: i32,
        key: Type,
        #[serde(rename = "value-id")]
        value_id: i32,
        value: Type,
        #[serde(rename = "value-required", default)]
        value_required: bool,
    },
}

impl Type {
    pub fn describe(&self) -> String {
        match self {
            Type::Primitive(p) => p.clone(),
            Type::Nested(n) => match n.as_ref() {
                NestedType::Struct { fields } => {
                    format!("struct<{}>", fields.iter().map(|f| format!("{}: {}", f.name, f.field_type.describe())).collect::<Vec<_>>().join(", "))
                }
                NestedType::List { element, .. } => format!("list<{}>", element.describe()),
                NestedType::Map { key, value, .. } => format!("map<{}, {}>", key.describe(), value.describe()),
            },
        }
    }
}

impl Schema {
    /// Every field at any depth with its dotted name, so that a dropped nested column is seen too.
    pub fn all_fields(&self) -> Vec<(String, &NestedField)> {
        let mut out = Vec::new();
        collect(&self.fields, "", &mut out);
        out
    }

    pub fn field_by_id(&self, id: i32) -> Option<&NestedField> {
        self.all_fields().into_iter().map(|(_, f)| f).find(|f| f.id == id)
    }
}

fn collect<'a>(fields: &'a [NestedField], prefix: &str, out: &mut Vec<(String, &'a NestedField)>) {
    for f in fields {
        let name = if prefix.is_empty() { f.name.clone() } else { format!("{prefix}.{}", f.name) };
        out.push((name.clone(), f));
        if let Type::Nested(n) = &f.field_type {
            if let NestedType::Struct { fields } = n.as_ref() {
                collect(fields, &name, out);
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionSpec {
    #[serde(rename = "spec-id", default)]
    pub spec_id: i32,
    #[serde(default)]
    pub fields: Vec<PartitionField>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionField {
    #[serde(rename = "source-id", default)]
    pub source_id: i32,
    /// v1 specs may omit field ids; they are then assigned from 1000 in order.
    #[serde(rename = "field-id", default)]
    pub field_id: Option<i32>,
    pub name: String,
    pub transform: Transform,
}

/// A partition transform as the spec names it; anything else is kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transform {
    Identity,
    Bucket(u32),
    Truncate(u32),
    Year,
    Month,
    Day,
    Hour,
    Void,
    Unknown(String),
}

impl Transform {
    pub fn parse(s: &str) -> Transform {
        let arg = |prefix: &str| s.strip_prefix(prefix).and_then(|r| r.strip_suffix(']')).and_then(|n| n.trim().parse::<u32>().ok());
        match s {
            "identity" => Transform::Identity,
            "year" => Transform::Year,
            "month" => Transform::Month,
            "day" => Transform::Day,
            "hour" => Transform::Hour,
            "void" => Transform::Void,
            _ => match (arg("bucket["), arg("truncate[")) {
                (Some(n), _) => Transform::Bucket(n),
                (_, Some(w)) => Transform::Truncate(w),
                _ => Transform::Unknown(s.to_string()),
            },
        }
    }
}

impl std::fmt::Display for Transform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Transform::Identity => f.write_str("identity"),
            Transform::Bucket(n) => write!(f, "bucket[{n}]"),
            Transform::Truncate(w) => write!(f, "truncate[{w}]"),
            Transform::Year => f.write_str("year"),
            Transform::Month => f.write_str("month"),
            Transform::Day => f.write_str("day"),
            Transform::Hour => f.write_str("hour"),
            Transform::Void => f.write_str("void"),
            Transform::Unknown(s) => f.write_str(s),
        }
    }
}

impl Serialize for Transform {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Transform {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| Transform::parse(&s))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct SortOrder {
    #[serde(rename = "order-id", default)]
    pub order_id: i32,
    #[serde(default)]
    pub fields: Vec<serde_json::Value>,
}

#[cfg(test)]
mod tests {
    use super::Transform;

    #[test]
    fn transforms_read_as_the_spec_names_them_and_keep_what_it_does_not() {
        for (text, t) in
            [("day", Transform::Day), ("bucket[16]", Transform::Bucket(16)), ("truncate[ 4]", Transform::Truncate(4)), ("identity", Transform::Identity)]
        {
            assert_eq!(Transform::parse(text), t);
        }
        assert_eq!(Transform::parse("bucket[-1]"), Transform::Unknown("bucket[-1]".into()));
        assert_eq!(Transform::parse("zorder<a,b>").to_string(), "zorder<a,b>");
        assert_eq!(serde_json::to_string(&Transform::Bucket(8)).unwrap(), "\"bucket[8]\"");
    }
}
