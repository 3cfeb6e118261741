use toolsearch_qa::provider::MockProvider;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::lane::{send_turn, session_key};
use toolsearch_qa::targets::{LaneSetup, OpenClawTarget, Target};

#[tokio::test]
#[ignore]
async fn scratch_keep_openclaw_state() {
    let scenario = select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap().remove(0);
    let target = OpenClawTarget::locate().unwrap();
    let provider = MockProvider::start().await.unwrap();
    for lane in &scenario.lanes {
        let dir = std::path::PathBuf::from(format!("/tmp/oc-keep/{}", lane.name));
        std::fs::create_dir_all(&dir).unwrap();
        let setup = LaneSetup { scenario: &scenario, lane, provider_base_url: provider.base_url(), work_dir: dir.clone(), env: vec![] };
        let gw = target.start(&setup).await.unwrap();
        let r = send_turn(&gw.base_url(), &scenario, lane, &session_key(lane), target.turn_timeout()).await.unwrap();
        eprintln!("{} {}", lane.name, r.0);
        gw.stop().await;
        let bodies: Vec<_> = provider.journal().all().iter().map(|r| r.raw.clone()).collect();
        std::fs::write(dir.join("requests.json"), serde_json::to_string(&bodies).unwrap()).unwrap();
    }
}
