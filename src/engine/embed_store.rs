//! A shared disk copy of embedded text sets, for a run of many processes over one build.
//!
//! A test run starts dozens of processes, and several embed the same catalogue (the realistic
//! catalogue's 1,009 tools cost about a minute of CPU each time in a debug build). With
//! `TOOLSEARCH_QA_EMBED_STORE` naming a directory, a set of texts embedded by one process is
//! written there and read back by the next. Opt-in and never persistent by default: `.ci/run`
//! gives it a fresh directory that dies with the run, so the processes sharing it are one build
//! with one model, and a vector is never read from another build that might embed differently.
//! An entry is keyed by the model directory, the token cut and the exact texts; a file that is
//! missing, short or unreadable is a miss, and the texts are embedded again.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Environment variable naming the store's directory (unset: no store).
pub const STORE_ENV: &str = "TOOLSEARCH_QA_EMBED_STORE";

/// Sets smaller than this are embedded in place (a gateway's few texts are not worth a file).
const MIN_TEXTS: usize = 64;

/// The store of one model's embeddings.
#[derive(Debug, Clone)]
pub struct EmbedStore {
    dir: PathBuf,
    model: String,
}

impl EmbedStore {
    /// The store named by [`STORE_ENV`] for the model in `model_dir` (`None` when unset).
    pub fn from_env(model_dir: &Path, max_tokens: usize) -> Option<Self> {
        let dir = std::env::var_os(STORE_ENV).filter(|d| !d.is_empty())?;
        Some(EmbedStore {
            dir: PathBuf::from(dir),
            model: format!("{}\0{max_tokens}", model_dir.display()),
        })
    }

    fn path(&self, texts: &[&str]) -> PathBuf {
        let mut hash = Sha256::new();
        hash.update(self.model.as_bytes());
        for text in texts {
            hash.update([0]);
            hash.update(text.as_bytes());
        }
        let digest = hash.finalize();
        let name: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.f32"))
    }

    /// The vectors of `texts` (each `dims` wide), when a process stored them.
    pub fn load(&self, texts: &[&str], dims: usize) -> Option<Vec<Vec<f32>>> {
        if texts.len() < MIN_TEXTS {
            return None;
        }
        let bytes = std::fs::read(self.path(texts)).ok()?;
        if bytes.len() != texts.len() * dims * 4 {
            return None;
        }
        let floats: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Some(floats.chunks(dims).map(<[f32]>::to_vec).collect())
    }

    /// Stores the vectors of `texts`, whole or not at all (written beside, then renamed). A
    /// store that cannot be written only costs the next process the embedding.
    pub fn save(&self, texts: &[&str], vectors: &[Vec<f32>]) {
        if texts.len() < MIN_TEXTS || std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let Ok(mut file) = tempfile::NamedTempFile::new_in(&self.dir) else {
            return;
        };
        let bytes: Vec<u8> = vectors
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        if file.write_all(&bytes).is_ok() {
            let _ = file.persist(self.path(texts));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("tool {i}")).collect()
    }

    #[test]
    fn a_stored_set_reads_back_exactly_and_another_set_misses() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = EmbedStore {
            dir: dir.path().join("store"),
            model: "m\u{0}128".into(),
        };
        let owned = texts(MIN_TEXTS);
        let set: Vec<&str> = owned.iter().map(String::as_str).collect();
        let vectors: Vec<Vec<f32>> = (0..set.len()).map(|i| vec![i as f32, -0.5, 1e-7]).collect();
        assert_eq!(store.load(&set, 3), None);
        store.save(&set, &vectors);
        assert_eq!(store.load(&set, 3), Some(vectors.clone()));
        // Another text, another model or another width is a miss, never a wrong vector.
        let mut other = set.clone();
        other[0] = "tool x";
        assert_eq!(store.load(&other, 3), None);
        let model = EmbedStore {
            model: "m2\u{0}128".into(),
            ..store.clone()
        };
        assert_eq!(model.load(&set, 3), None);
        assert_eq!(store.load(&set, 4), None);
    }

    #[test]
    fn small_sets_are_not_stored() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = EmbedStore {
            dir: dir.path().to_path_buf(),
            model: "m".into(),
        };
        let owned = texts(MIN_TEXTS - 1);
        let set: Vec<&str> = owned.iter().map(String::as_str).collect();
        store.save(&set, &vec![vec![0.0; 3]; set.len()]);
        assert_eq!(
            std::fs::read_dir(dir.path()).map(Iterator::count).ok(),
            Some(0)
        );
    }
}
