//! A snapshot summary (string keys to string values) stored as one text buffer and offsets: a
//! day of 5-second checkpoints is 17,280 summaries of ~25 entries, and a map of owned strings
//! per summary was most of the memory a table's metadata took once parsed. Shared (`Arc`): the
//! browser's snapshot table holds every summary beside the history without a copy, and summaries
//! with the same keys keep them once.

use std::fmt;
use std::sync::Arc;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The sorted, unique keys: shared with the summaries that have the same set, as a writer's
    /// commits nearly all do (half of a Flink commit's summary text is its keys).
    keys: Arc<Keys>,
    /// The values, one after another, in key order.
    values: Arc<str>,
    /// Where each value ends in `values`.
    ends: Arc<[u32]>,
}

#[derive(Default, PartialEq, Eq)]
struct Keys {
    text: Box<str>,
    ends: Box<[u32]>,
}

/// Strings one after another, and where each ends (the loader never accepts a file past 4 GiB).
fn pack<S: AsRef<str>>(items: &[S]) -> (Box<str>, Box<[u32]>) {
    let mut text = String::with_capacity(items.iter().map(|s| s.as_ref().len()).sum());
    let mut ends = Vec::with_capacity(items.len());
    for s in items {
        text.push_str(s.as_ref());
        ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
    }
    (text.into_boxed_str(), ends.into_boxed_slice())
}

/// The `i`th string `pack` packed.
fn nth<'a>(text: &'a str, ends: &[u32], i: usize) -> &'a str {
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    text.get(start..ends[i] as usize).unwrap_or("")
}

impl Keys {
    fn get(&self, i: usize) -> &str {
        nth(&self.text, &self.ends, i)
    }

    fn same<K: AsRef<str>>(&self, keys: &[K]) -> bool {
        self.ends.len() == keys.len() && keys.iter().enumerate().all(|(i, k)| self.get(i) == k.as_ref())
    }
}

thread_local! {
    /// Key sets seen lately: consecutive summaries share them.
    static RECENT_KEYS: std::cell::RefCell<Vec<Arc<Keys>>> = const { std::cell::RefCell::new(Vec::new()) };
}

const MAX_RECENT_KEYS: usize = 8;

fn shared_keys<K: AsRef<str>>(keys: &[K]) -> Arc<Keys> {
    RECENT_KEYS.with(|r| {
        super::recent::shared(
            &mut r.borrow_mut(),
            MAX_RECENT_KEYS,
            |k| k.same(keys),
            || {
                let (text, ends) = pack(keys);
                Arc::new(Keys { text, ends })
            },
        )
    })
}

impl Summary {
    /// Entries in any order; a repeated key keeps its last value, as a JSON object reader does.
    pub fn from_pairs<K: AsRef<str>, V: AsRef<str>>(pairs: impl IntoIterator<Item = (K, V)>) -> Summary {
        let mut v: Vec<(K, V)> = pairs.into_iter().collect();
        v.reverse();
        v.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        v.dedup_by(|later, earlier| later.0.as_ref() == earlier.0.as_ref());
        // A summary past 4 GiB cannot come from a file the loader accepts; stop rather than wrap.
        let (mut key_len, mut value_len) = (0usize, 0usize);
        let fits = v
            .iter()
            .take_while(|(k, x)| {
                key_len += k.as_ref().len();
                value_len += x.as_ref().len();
                u32::try_from(key_len).is_ok() && u32::try_from(value_len).is_ok()
            })
            .count();
        v.truncate(fits);
        let (keys, values): (Vec<K>, Vec<V>) = v.into_iter().unzip();
        let (text, ends) = pack(&values);
        Summary { keys: shared_keys(&keys), values: Arc::from(text), ends: Arc::from(ends) }
    }

    fn value(&self, i: usize) -> &str {
        nth(&self.values, &self.ends, i)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        (0..self.ends.len()).map(move |i| (self.keys.get(i), self.value(i)))
    }

    /// Keys are sorted: a binary search (a day of commits asks 17,280 summaries for a dozen keys each).
    pub fn get(&self, key: &str) -> Option<&str> {
        let (mut lo, mut hi) = (0usize, self.ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.keys.get(mid).cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.value(mid)),
            }
        }
        None
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The same summary without `key`, and its value.
    pub fn without(&self, key: &str) -> (Summary, Option<String>) {
        let value = self.get(key).map(str::to_string);
        if value.is_none() {
            return (self.clone(), None);
        }
        (Summary::from_pairs(self.iter().filter(|(k, _)| *k != key)), value)
    }
}

impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for Summary {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Summary::from_pairs(iter)
    }
}

impl fmt::Debug for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The decoder worker's wire (postcard, not human-readable) carries a summary as it is held: the
/// page then takes a day of summaries without two strings and a sort per entry (W1a's 17,280 made
/// up most of the time the page spent taking a decoded metadata.json).
#[derive(Serialize, Deserialize)]
struct Packed<'a> {
    #[serde(borrow)]
    keys: std::borrow::Cow<'a, str>,
    key_ends: std::borrow::Cow<'a, [u32]>,
    #[serde(borrow)]
    values: std::borrow::Cow<'a, str>,
    ends: std::borrow::Cow<'a, [u32]>,
}

/// Whether `ends` cut `text` into strings at character boundaries, in order, ending at its end.
fn cuts(text: &str, ends: &[u32]) -> bool {
    let mut last = 0usize;
    ends.iter().all(|&e| {
        let e = e as usize;
        let ok = e >= last && text.is_char_boundary(e);
        last = e;
        ok
    }) && last == text.len()
}

impl Packed<'_> {
    /// A summary from the wire, where its offsets hold and its keys are sorted and unique (the
    /// lookups rely on both); None where not.
    fn unpack(self) -> Option<Summary> {
        let n = self.ends.len();
        if self.key_ends.len() != n || !cuts(&self.keys, &self.key_ends) || !cuts(&self.values, &self.ends) {
            return None;
        }
        if !(1..n).all(|i| nth(&self.keys, &self.key_ends, i - 1) < nth(&self.keys, &self.key_ends, i)) {
            return None;
        }
        let keys = RECENT_KEYS.with(|r| {
            super::recent::shared(
                &mut r.borrow_mut(),
                MAX_RECENT_KEYS,
                |k| *k.text == *self.keys && *k.ends == *self.key_ends,
                || Arc::new(Keys { text: self.keys.clone().into(), ends: self.key_ends.to_vec().into_boxed_slice() }),
            )
        });
        Some(Summary { keys, values: Arc::from(&*self.values), ends: Arc::from(&*self.ends) })
    }
}

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !s.is_human_readable() {
            use std::borrow::Cow::Borrowed;
            let packed =
                Packed { keys: Borrowed(&self.keys.text), key_ends: Borrowed(&self.keys.ends), values: Borrowed(&self.values), ends: Borrowed(&self.ends) };
            return packed.serialize(s);
        }
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// A summary's key or value as JSON gives it: borrowed from the file where it has no escapes (a
/// day of commits is 17,280 summaries of ~25 entries: two allocations each were most of the parse).
/// Values are strings by spec; some writers emit numbers or booleans, kept as their JSON text.
struct Text<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use std::borrow::Cow::{Borrowed, Owned};
        struct T;
        impl<'de> Visitor<'de> for T {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Owned(v)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Text<'de>, E> {
                Ok(Text(Owned(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Text<'de>, E> {
                Ok(Text(Owned(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Text<'de>, E> {
                Ok(Text(Owned(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Text<'de>, E> {
                Ok(Text(Owned(serde_json::Value::from(v).to_string())))
            }
            fn visit_unit<E>(self) -> Result<Text<'de>, E> {
                Ok(Text(Borrowed("null")))
            }
            fn visit_none<E>(self) -> Result<Text<'de>, E> {
                Ok(Text(Borrowed("null")))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Text<'de>, A::Error> {
                let v = serde_json::Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Text(Owned(v.to_string())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text<'de>, A::Error> {
                let v = serde_json::Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Text(Owned(v.to_string())))
            }
        }
        d.deserialize_any(T)
    }
}

impl AsRef<str> for Text<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Summary {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Summary;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Summary, A::Error> {
                let mut pairs: Vec<(Text<'de>, Text<'de>)> = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
                while let Some(k) = map.next_key::<Text<'de>>()? {
                    pairs.push((k, map.next_value::<Text<'de>>()?));
                }
                Ok(Summary::from_pairs(pairs))
            }
        }
        if !d.is_human_readable() {
            return Packed::deserialize(d)?.unpack().ok_or_else(|| serde::de::Error::custom("a summary's offsets or key order do not hold"));
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_entries_sorted_and_the_last_of_a_repeated_key() {
        let s = Summary::from_pairs([("b", "2"), ("a", "1"), ("b", "3"), ("", "empty")]);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![("", "empty"), ("a", "1"), ("b", "3")]);
        assert_eq!(s.get("b"), Some("3"));
        assert_eq!(s.get("c"), None);
        assert_eq!(s.get(""), Some("empty"));
        let many = Summary::from_pairs((0..40).rev().map(|i| (format!("k{i:02}"), i.to_string())));
        for i in 0..40 {
            assert_eq!(many.get(&format!("k{i:02}")), Some(i.to_string().as_str()));
        }
        assert_eq!((many.get("k"), many.get("k40"), many.get("a"), many.get("z")), (None, None, None, None));
        let (rest, op) = s.without("a");
        assert_eq!((rest.len(), op.as_deref()), (2, Some("1")));
    }

    #[test]
    fn reads_numbers_and_booleans_as_their_text() {
        let s: Summary = serde_json::from_str(
            r#"{"added-records": 5, "flag": true, "op": "append", "x": null, "f": 1.0, "n": -2, "a": [1, "b"], "o": {"k": 1}, "e": "t\u00e9\n"}"#,
        )
        .unwrap();
        let expected = vec![
            ("a", r#"[1,"b"]"#),
            ("added-records", "5"),
            ("e", "t\u{e9}\n"),
            ("f", "1.0"),
            ("flag", "true"),
            ("n", "-2"),
            ("o", r#"{"k":1}"#),
            ("op", "append"),
            ("x", "null"),
        ];
        assert_eq!(s.iter().collect::<Vec<_>>(), expected);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"a":"[1,\"b\"]","added-records":"5","e":"té\n","f":"1.0","flag":"true","n":"-2","o":"{\"k\":1}","op":"append","x":"null"}"#
        );
        let from_reader: Summary = serde_json::from_reader(r#"{"e": "t\u00e9", "op": "append"}"#.as_bytes()).unwrap();
        assert_eq!(from_reader.iter().collect::<Vec<_>>(), vec![("e", "t\u{e9}"), ("op", "append")]);
    }

    #[test]
    fn crosses_the_worker_wire_packed_and_refuses_offsets_that_do_not_hold() {
        let s = Summary::from_pairs([("added-records", "5"), ("flink.job-id", "ab\u{e9}"), ("", "")]);
        let wire = postcard::to_allocvec(&s).unwrap();
        let back: Summary = postcard::from_bytes(&wire).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.get("flink.job-id"), Some("ab\u{e9}"));
        let bad = |keys: &str, key_ends: &[u32], values: &str, ends: &[u32]| {
            let p = Packed { keys: keys.into(), key_ends: key_ends.into(), values: values.into(), ends: ends.into() };
            postcard::from_bytes::<Summary>(&postcard::to_allocvec(&p).unwrap()).map(|s| s.len())
        };
        assert_eq!(bad("ab", &[1, 2], "xy", &[1, 2]), Ok(2), "the well-formed control");
        assert!(bad("ba", &[1, 2], "xy", &[1, 2]).is_err(), "keys out of order");
        assert!(bad("aa", &[1, 2], "xy", &[1, 2]).is_err(), "a repeated key");
        assert!(bad("ab", &[2, 1], "xy", &[1, 2]).is_err(), "ends going back");
        assert!(bad("ab", &[1, 9], "xy", &[1, 2]).is_err(), "an end past the text");
        assert!(bad("ab", &[1, 2], "\u{e9}y", &[1, 3]).is_err(), "an end inside a character");
        assert!(bad("ab", &[1, 2], "xyz", &[1, 2]).is_err(), "text past the last end");
        assert!(bad("ab", &[1, 2], "xy", &[2]).is_err(), "as many values as keys");
    }
}
