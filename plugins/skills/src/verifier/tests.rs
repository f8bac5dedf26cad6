use serde_json::json;

use super::*;

fn parse_ok(v: Value) -> Check {
    let mut p = Vec::new();
    let c = parse(&v, "verifier", &|h| h == "chat" || h == "walk", &mut p);
    assert!(p.is_empty(), "{p:?}");
    c.expect("parsed")
}

fn parse_problems(v: Value) -> String {
    let mut p = Vec::new();
    let c = parse(&v, "verifier", &|h| h == "chat", &mut p);
    assert!(c.is_none());
    p.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("\n")
}

fn snap(pos: (f64, f64, f64)) -> Snapshot {
    Snapshot { position: Some(Vec3::new(pos.0, pos.1, pos.2)), ..Default::default() }
}

fn event(helper: &str, kind: HelperKind, params: Value, result: Value) -> HelperEvent {
    HelperEvent {
        seq: 1,
        helper: helper.into(),
        kind,
        params,
        tick: 0,
        resolved_tick: Some(0),
        result: Some(result),
        error: None,
        request_id: None,
    }
}

#[test]
fn malformed_verifiers_name_each_field() {
    let p = parse_problems(json!({"kind":"all","checks":[
        {"kind":"inventory_delta"},
        {"kind":"block_count_delta","block":"dirt","radius":40,"min_delta":1},
        {"kind":"helper_result","helper":"fly"},
        {"kind":"teleported"},
        {"kind":"near","radius":2,"pos":{"x":1,"y":2,"z":3},"player":"Alice"},
        {"kind":"chat_sent","contains":"hi","colour":"red"}
    ]}));
    for want in [
        "verifier.checks[0].item: is required",
        "verifier.checks[0].min_delta: give min_delta, max_delta or both",
        "verifier.checks[1].radius: must be an integer 1..=16",
        "verifier.checks[2].helper: no helper named fly",
        "verifier.checks[3].kind: unknown verifier kind teleported",
        "verifier.checks[4].pos: give exactly one of pos, player or nearest_player:true",
        "verifier.checks[5].colour: unknown field",
    ] {
        assert!(p.contains(want), "{want}\nin\n{p}");
    }
    assert!(parse_problems(json!("chat")).contains("verifier: must be an object"));
}

#[test]
fn param_references_are_found_and_substituted() {
    let v = json!({"kind":"inventory_delta","item":"oak_log","min_delta":{"$param":"count"}});
    let mut refs = Vec::new();
    param_refs(&v, "verifier", &mut refs);
    assert_eq!(refs, vec![("verifier.min_delta".to_owned(), "count".to_owned())]);
    let params = json!({"count": 5}).as_object().cloned().unwrap_or_default();
    assert_eq!(substitute(&v, &params)["min_delta"], json!(5));
}

#[test]
fn inventory_checks_are_inconclusive_without_inventory_data_never_a_pass() {
    for v in [
        json!({"kind":"inventory_delta","item":"oak_log","min_delta":1}),
        json!({"kind":"inventory_at_least","item":"oak_log","count":0}),
        json!({"kind":"equipped","item":"diamond_pickaxe"}),
    ] {
        let c = parse_ok(v);
        let r = evaluate(&c, &Snapshot::default(), &Snapshot::default(), &[]);
        assert_eq!(r.status, Verdict::Inconclusive, "{r:?}");
        // `not` of inconclusive stays inconclusive; `any` with only inconclusive is not a pass.
        let r = evaluate(&Check::Not(Box::new(c.clone())), &Snapshot::default(), &Snapshot::default(), &[]);
        assert_eq!(r.status, Verdict::Inconclusive);
        let r = evaluate(&Check::Any(vec![c]), &Snapshot::default(), &Snapshot::default(), &[]);
        assert_eq!(r.status, Verdict::Inconclusive);
    }
}

#[test]
fn inventory_checks_use_real_before_and_after_counts() {
    let inv = |n: u64| InventorySeen {
        items: [("minecraft:oak_log".to_owned(), n)].into(),
        equipped: [("hand".to_owned(), "minecraft:stone_axe".to_owned())].into(),
    };
    let before = Snapshot { inventory: Some(inv(3)), ..Default::default() };
    let after = Snapshot { inventory: Some(inv(5)), ..Default::default() };
    let delta = parse_ok(json!({"kind":"inventory_delta","item":"oak_log","min_delta":2}));
    assert_eq!(evaluate(&delta, &before, &after, &[]).status, Verdict::Passed);
    let delta3 = parse_ok(json!({"kind":"inventory_delta","item":"oak_log","min_delta":3}));
    assert_eq!(evaluate(&delta3, &before, &after, &[]).status, Verdict::Failed, "3 held before do not count");
    let held = parse_ok(json!({"kind":"equipped","item":"Stone_Axe"}));
    assert_eq!(evaluate(&held, &before, &after, &[]).status, Verdict::Passed);
}

#[test]
fn unloaded_cells_are_inconclusive_and_counts_compare_the_same_box() {
    let c = parse_ok(json!({"kind":"block_at","offset":{"x":0,"y":2,"z":0},"block":"dirt"}));
    let before = snap((0.5, -60.0, 0.5));
    let mut after = snap((0.5, -58.0, 0.5));
    let plan = SnapshotPlan::for_check(&c, before.position);
    assert_eq!(plan.cells, vec![Cell { x: 0, y: -58, z: 0 }]);
    assert_eq!(evaluate(&c, &before, &after, &[]).status, Verdict::Inconclusive);
    after.cells.insert("0,-58,0".into(), None);
    assert_eq!(evaluate(&c, &before, &after, &[]).status, Verdict::Inconclusive);
    after.cells.insert("0,-58,0".into(), Some("minecraft:dirt".into()));
    assert_eq!(evaluate(&c, &before, &after, &[]).status, Verdict::Passed);
    after.cells.insert("0,-58,0".into(), Some("minecraft:air".into()));
    assert_eq!(evaluate(&c, &before, &after, &[]).status, Verdict::Failed);

    let count = parse_ok(json!({"kind":"block_count_delta","block":"dirt","radius":3,"min_delta":3}));
    let mut b = Snapshot::default();
    let mut a = Snapshot::default();
    b.counts.insert(count_key("dirt", 3), BlockCount { count: 10, unloaded: 0 });
    a.counts.insert(count_key("dirt", 3), BlockCount { count: 13, unloaded: 0 });
    assert_eq!(evaluate(&count, &b, &a, &[]).status, Verdict::Passed);
    a.counts.insert(count_key("dirt", 3), BlockCount { count: 13, unloaded: 4 });
    assert_eq!(evaluate(&count, &b, &a, &[]).status, Verdict::Inconclusive);
}

#[test]
fn positions_entities_vitals_and_helper_events() {
    let before = Snapshot {
        position: Some(Vec3::new(0.0, 0.0, 0.0)),
        vitals: Some([("hunger".to_owned(), 10.0)].into()),
        entities: Some(vec![
            EntitySeen { id: 5, kind: "mob".into(), name: "zombie".into(), position: Vec3::new(3.0, 0.0, 0.0) },
            EntitySeen { id: 2, kind: "player".into(), name: "Alice".into(), position: Vec3::new(9.0, 0.0, 0.0) },
        ]),
        ..Default::default()
    };
    let mut after = before.clone();
    after.position = Some(Vec3::new(8.0, 0.0, 0.0));
    after.vitals = Some([("hunger".to_owned(), 14.0)].into());
    if let Some(e) = after.entities.as_mut() {
        e.retain(|e| e.id != 5);
    }
    let pass = |v: Value| evaluate(&parse_ok(v), &before, &after, &[]).status;
    assert_eq!(pass(json!({"kind":"position_delta","min_distance":7.5})), Verdict::Passed);
    assert_eq!(pass(json!({"kind":"position_delta","min_distance":9})), Verdict::Failed);
    assert_eq!(pass(json!({"kind":"near","player":"alice","radius":1.5})), Verdict::Passed);
    assert_eq!(pass(json!({"kind":"near","nearest_player":true,"radius":0.5})), Verdict::Failed);
    assert_eq!(pass(json!({"kind":"near","player":"Bob","radius":3})), Verdict::Inconclusive);
    assert_eq!(pass(json!({"kind":"entity_gone","entity":5})), Verdict::Passed);
    assert_eq!(pass(json!({"kind":"entity_gone","entity":2})), Verdict::Failed);
    assert_eq!(pass(json!({"kind":"entity_gone","entity":77})), Verdict::Inconclusive);
    assert_eq!(pass(json!({"kind":"vitals_delta","field":"hunger","min_delta":4})), Verdict::Passed);
    let events = [
        event("chat", HelperKind::Instant, json!({"message":"Hello Alice!"}), json!({"status":"done","code":"ok"})),
        event("walk", HelperKind::Action, json!({"x":1}), json!({"status":"failed","code":"timeout"})),
    ];
    let with = |v: Value| evaluate(&parse_ok(v), &before, &after, &events).status;
    assert_eq!(with(json!({"kind":"chat_sent","contains":"alice"})), Verdict::Passed);
    assert_eq!(with(json!({"kind":"chat_sent","contains":"bob"})), Verdict::Failed);
    assert_eq!(with(json!({"kind":"helper_result","helper":"walk"})), Verdict::Failed);
    assert_eq!(
        with(json!({"kind":"helper_result","helper":"walk","status":"failed","code":"timeout"})),
        Verdict::Passed
    );
    assert_eq!(
        with(
            json!({"kind":"all","checks":[{"kind":"chat_sent"},{"kind":"not","check":{"kind":"helper_result","helper":"walk"}}]})
        ),
        Verdict::Passed
    );
    assert_eq!(
        with(
            json!({"kind":"any","checks":[{"kind":"chat_sent","contains":"bob"},{"kind":"inventory_at_least","item":"x","count":1}]})
        ),
        Verdict::Inconclusive
    );
}
