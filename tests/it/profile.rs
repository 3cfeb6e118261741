//! Profiles end to end on the embedded gateway: the product profile shapes what the provider
//! receives (tools, prompt sections, directory) with exactly the committed sizes, a capture of
//! the embedded gateway reads the same profile back, and bad input is named.

use std::collections::BTreeMap;

use assert_cmd::Command;
use toolsearch_qa::capture::observe;
use toolsearch_qa::capture::read::read_surface;
use toolsearch_qa::config::ToolSearchMode;
use toolsearch_qa::profile::model::{Captured, Section};
use toolsearch_qa::profile::{resolve, Size, OPENCLAW};
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::targets::EmbeddedTarget;

fn product() -> Captured {
    resolve(OPENCLAW)
        .unwrap()
        .captured()
        .expect("a captured profile")
        .clone()
}

fn sizes(sections: &[Section]) -> Vec<(Option<String>, Size, Option<Size>)> {
    sections
        .iter()
        .map(|s| {
            (
                s.heading.clone(),
                s.text.size(),
                s.after.as_ref().map(|a| a.size()),
            )
        })
        .collect()
}

/// Capturing the embedded gateway while it shows the product profile gives the product
/// profile back: every size, name, schema and section is rendered exactly.
#[tokio::test(flavor = "multi_thread")]
async fn a_capture_of_the_embedded_gateway_reads_the_product_profile_back() {
    let committed = product();
    let mut reference = select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()])
        .unwrap()
        .remove(0);
    reference.profile = resolve(OPENCLAW).unwrap();
    let bound = committed.source.catalog_size.max(1_000);
    let observations = observe(&EmbeddedTarget, &reference, bound).await.unwrap();
    let read = read_surface(&observations).unwrap();

    let names = |c: &Captured| -> BTreeMap<String, String> {
        c.core_tools
            .iter()
            .map(|t| (t.name.clone(), format!("{:?}", t.exposure)))
            .collect()
    };
    assert_eq!(names(&read), names(&committed));
    for (ours, theirs) in read.core_tools.iter().zip(&committed.core_tools) {
        assert_eq!(
            ours.description.size(),
            theirs.description.size(),
            "{}",
            ours.name
        );
        assert_eq!(
            ours.summary.as_ref().map(|s| s.size()),
            theirs.summary.as_ref().map(|s| s.size()),
            "{}",
            ours.name
        );
    }
    assert_eq!(
        read.controls
            .iter()
            .map(|c| (&c.name, &c.modes, c.description.size()))
            .collect::<Vec<_>>(),
        committed
            .controls
            .iter()
            .map(|c| (&c.name, &c.modes, c.description.size()))
            .collect::<Vec<_>>()
    );
    for mode in ToolSearchMode::ALL {
        assert_eq!(
            sizes(read.prompt.of(mode)),
            sizes(committed.prompt.of(mode)),
            "prompt of {}",
            mode.as_str()
        );
    }
    assert_eq!(
        read.request.user_prefix.size(),
        committed.request.user_prefix.size()
    );
    assert_eq!(read.directory.modes, committed.directory.modes);
    assert_eq!(
        read.directory.description_cuts,
        committed.directory.description_cuts
    );
    assert_eq!(read.directory.max_chars, committed.directory.max_chars);
    assert_eq!(
        read.directory.omitted.size(),
        committed.directory.omitted.size()
    );
}

#[test]
fn a_profile_file_with_a_wrong_field_is_a_usage_error_naming_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    let text = std::fs::read_to_string("data/profiles/openclaw-2026.9.6.toml").unwrap();
    std::fs::write(
        &path,
        text.replacen("exposure = \"", "exposure = \"maybe-", 1),
    )
    .unwrap();
    let output = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args([
            "suite",
            "--scenario",
            "tool-search-gateway-e2e",
            "--no-snapshots",
            "--profile",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "profile file {}: core_tools[0].exposure: ",
            path.display()
        )),
        "{stderr}"
    );

    std::fs::write(
        &path,
        "name = \"x\"\nabout = \"y\"\nsurface = \"captured\"\n",
    )
    .unwrap();
    let output = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args(["compare", "--sizes", "36", "--profile"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(": source: missing"), "{stderr}");

    let output = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args(["suite", "--no-snapshots", "--profile", "no-such-profile"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains(
        "unknown profile \"no-such-profile\"; built in: openclaw-2026.9.3, openclaw-2026.9.4, openclaw-2026.9.5, openclaw-2026.9.6, openclaw-upstream, spec"
    ));
}

#[test]
fn capturing_a_product_that_is_not_installed_says_how_to_install_it() {
    let cache = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .env("TOOLSEARCH_QA_CACHE", cache.path())
        .args(["profile", "capture", "--target", "openclaw"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("OpenClaw 2026.9.6 is not installed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("run scripts/install-openclaw.sh"),
        "{stderr}"
    );
}
