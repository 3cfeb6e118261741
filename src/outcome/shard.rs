//! A CI matrix's slice of a run: shard `K/N`, as written on the command line and in
//! `summary.json`.

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `K/N` with 1 <= K <= N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let (k, n) = text.split_once('/').ok_or("expected K/N, e.g. 1/4")?;
        let number = |part: &str, name: &str| {
            part.trim()
                .parse::<usize>()
                .map_err(|_| format!("{name} in {text:?} is not a whole number"))
        };
        let (index, count) = (number(k, "K")?, number(n, "N")?);
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard {text:?} must have 1 <= K <= N"));
        }
        Ok(Shard { index, count })
    }
}

/// As written on the command line (`"2/4"`), in `summary.json`.
impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
