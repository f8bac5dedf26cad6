//! End to end: skills authored to seed 003's contract — TypeScript candidates in its exact shape
//! (`proposed_action_skill_id`, …, `helper_api_version: "mineflayer-action-skill-helper/v1"`),
//! as an agent following the seed writes them — trialled by the real binary on the peer's
//! crafting scenario (`tests/peer/crafting.js`) and promoted on the runtime's evidence. Between
//! them they call every helper of the seed's API and use every one of its verifier kinds; the
//! tech-tree steps collectLogs → craftItem (planks, sticks) → placeBlock (table) → craftWithTable
//! (wooden pickaxe) are each a promoted skill, and the peer confirms each step on its side (it
//! validates crafts against minecraft-data's recipes, breaks and places blocks, counts pickups).

use crate::common;

use std::time::Duration;

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);
const TRIAL: Duration = Duration::from_secs(60);
const PEER: Duration = Duration::from_secs(15);

const API: &str = "mineflayer-action-skill-helper/v1";

/// A candidate in the seed's shape (the provider output object, field for field).
#[allow(clippy::too_many_arguments)]
fn candidate(
    id: &str,
    purpose: &str,
    properties: Value,
    parameters: Value,
    source: &str,
    allowlist: &[&str],
    timeout_ms: u64,
    verifier: Value,
    failure_modes: &[&str],
) -> Value {
    let required: Vec<String> = properties.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    json!({
        "proposed_action_skill_id": id,
        "purpose": purpose,
        "input_schema": {"type": "object", "properties": properties, "required": required, "additionalProperties": false},
        "parameters": parameters,
        "source_language": "typescript",
        "source": source,
        "helper_api_version": API,
        "helper_allowlist": allowlist,
        "timeout_ms": timeout_ms,
        "verifier": verifier,
        "known_failure_modes": failure_modes,
        "promotion_policy": "promote_after_passed_trial"
    })
}

fn ok(bot: &mut Bot, cmd: Value) -> Value {
    let r = bot.request(cmd.clone(), ANSWER).unwrap_or_else(|| panic!("no answer to {cmd}"));
    assert!(r.get("error").is_none() && r.get("code").is_none(), "{cmd} failed: {r}");
    r
}

/// `skill_define`, then `skill_trial`; the finished trial.
fn define_and_trial(bot: &mut Bot, c: &Value) -> Value {
    let mut define = c.clone();
    define["action"] = json!("skill_define");
    let d = ok(bot, define);
    assert_eq!((d["state"].clone(), d["created"].clone()), (json!("candidate"), json!(true)), "{d}");
    assert!(d.get("warnings").is_none_or(|w| w == &json!([])), "accepted as written, no warning: {d}");
    let r = ok(bot, json!({"action": "skill_trial", "skill": c["proposed_action_skill_id"]}));
    finished(bot, &r["run"])
}

/// `author_mineflayer_action` (the seed's path: define and trial in one); the finished trial.
fn author(bot: &mut Bot, c: &Value) -> Value {
    let mut cmd = c.clone();
    cmd["action"] = json!("author_mineflayer_action");
    let r = ok(bot, cmd);
    assert_eq!(r["defined"]["state"], "candidate", "{r}");
    assert!(r.get("warnings").is_none() && r["defined"]["warnings"] == json!([]), "accepted as written: {r}");
    finished(bot, &r["trial"]["run"])
}

fn finished(bot: &mut Bot, run: &Value) -> Value {
    bot.wait(|e| e["type"] == "skill_finished" && e["run"] == *run, TRIAL)
        .unwrap_or_else(|| panic!("skill_finished {run}"))
}

/// The trial passed and promoted the candidate; its evidence file, parsed.
fn promoted(bot: &mut Bot, done: &Value) -> Value {
    let evidence =
        done["evidence"].as_str().map(|p| std::fs::read_to_string(p).unwrap_or_default()).unwrap_or_default();
    assert_eq!(
        (done["status"].clone(), done["verdict"].clone(), done["lifecycle"]["after"].clone()),
        (json!("done"), json!("passed"), json!("promoted")),
        "{done}\n{evidence}"
    );
    let skill = done["skill"].clone();
    bot.wait(|e| e["type"] == "skill_promoted" && e["skill"] == skill, ANSWER).expect("skill_promoted");
    serde_json::from_str(&evidence).expect("evidence json")
}

fn peer_event(peer: &mut Peer, event: &str, pred: impl Fn(&Value) -> bool) -> Value {
    peer.wait_line(|v| v["event"] == event && pred(v), PEER).unwrap_or_else(|| panic!("the peer never said {event}"))
}

fn walk_to(bot: &mut Bot, x: f64, z: f64) {
    let r = ok(bot, json!({"action": "walk", "x": x, "y": -60, "z": z}));
    if r["walked"] != 0 {
        let d = bot.wait(|v| v["type"] == "walk_done" && v["id"] == r["id"], PEER).expect("walk_done");
        assert_eq!(d["status"], "done", "{d}");
    }
}

/// The seed helpers the run called, in order, with their result status.
fn helper_trace(evidence: &Value) -> Vec<(String, String)> {
    evidence["helperEvents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let h = e["helper"].as_str().unwrap_or_default().to_owned();
            let st = e["result"]["status"].as_str().unwrap_or(e["status"].as_str().unwrap_or_default()).to_owned();
            (h, st)
        })
        .collect()
}

#[test]
fn seed_shaped_typescript_skills_trial_and_promote_on_the_crafting_peer() {
    let dir = common::TempDir::new("seed-skills");
    let skills = dir.path().join("skills");
    let skills_env = skills.to_str().expect("utf-8").to_owned();
    let mut peer = Peer::start("crafting");
    let mut bot = Bot::start_with(peer.port, "SeedCrafter", &[("CLAWCRAFT_SKILLS_DIR", &skills_env)]);
    bot.wait_event("spawn", SPAWN).expect("spawn");
    peer.wait_line(|v| v["event"] == "crafting_ready", SPAWN).expect("crafting ready");
    let deadline = std::time::Instant::now() + ANSWER;
    while bot.request(json!({"action": "recipes", "item": "stick"}), ANSWER).is_some_and(|r| r.get("error").is_some()) {
        assert!(std::time::Instant::now() < deadline, "recipes never arrived");
        bot.wait(|_| false, Duration::from_millis(100));
    }

    // 1. collectLogs — by the seed's own path, author_mineflayer_action (flat fields).
    let c = candidate(
        "gatherOakLogs",
        "Collect the requested number of oak logs from the nearest trees",
        json!({"targetCount": {"type": "integer", "minimum": 1, "maximum": 3, "description": "logs to add"}}),
        json!({"targetCount": 2}),
        r#"interface Params { targetCount: number }
interface CollectResult { status: string; collected?: number; reason?: string }

export async function run(ctx: any, params: Params): Promise<{ status: string; collected: number }> {
  const result = (await ctx.collectLogs(params.targetCount)) as CollectResult;
  if (result.status !== "collected") {
    return { status: "failed", collected: result.collected ?? 0 };
  }
  return { status: "ok", collected: result.collected ?? 0 };
}
"#,
        &["collectLogs"],
        90_000,
        json!({"kind": "inventory_delta", "item": "oak_log", "count": 2}),
        &["no logs found within search distance", "log unreachable", "dig failed"],
    );
    let done = author(&mut bot, &c);
    let ev = promoted(&mut bot, &done);
    assert_eq!(done["checks"]["observed"]["delta"], 2.0, "{done}");
    assert_eq!(helper_trace(&ev), [("collectLogs".to_owned(), "collected".to_owned())]);
    for _ in 0..2 {
        let b = peer_event(&mut peer, "block_broken", |v| v["block"] == "oak_log");
        assert_eq!(b["drops"], json!(["oak_log"]), "{b}");
        peer_event(&mut peer, "picked_up", |v| v["name"] == "oak_log");
    }
    // skill_get shows the seed's fields as authored, and the JavaScript that ran.
    let got = ok(&mut bot, json!({"action": "skill_get", "skill": "gatherOakLogs"}));
    assert_eq!(got["definition"], c, "{got}");
    assert!(
        got["compiledSource"]
            .as_str()
            .is_some_and(|js| js.contains("ctx.collectLogs(params.targetCount)") && !js.contains("interface")),
        "{got}"
    );

    // 2. craftItem (planks, three crafts) + inventoryItems — verifier inventory_count.
    let c = candidate(
        "craftOakPlanks",
        "Turn oak logs into oak planks at the inventory grid",
        json!({"crafts": {"type": "integer", "minimum": 1, "maximum": 4}}),
        json!({"crafts": 3}),
        r#"type Item = { name: string; count: number };

export async function run(ctx: any, params: { crafts: number }) {
  const logs = (ctx.inventoryItems() as Item[]).filter((i) => i.name === "oak_log").reduce((n, i) => n + i.count, 0);
  if (logs < params.crafts) return { status: "failed", reason: `only ${logs} oak logs` };
  let made = 0;
  for (let i = 0; i < params.crafts; i++) {
    const r = await ctx.craftItem("oak_planks");
    if (r.status !== "crafted") return { status: "failed", reason: r.reason, made };
    made += r.count as number;
  }
  return { status: "ok", made };
}
"#,
        &["inventoryItems", "craftItem"],
        30_000,
        json!({"kind": "inventory_count", "item": "oak_planks", "count": 12}),
        &["missing ingredients", "not enough oak logs"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    assert_eq!(done["result"], json!({"status": "ok", "made": 12}), "{done}");
    for _ in 0..3 {
        let p = peer_event(&mut peer, "crafted", |v| v["item"] == "oak_planks");
        assert_eq!(p["count"], 4, "{p}");
    }

    // 3. craftItem (sticks) — verifier helper_result_status.
    let c = candidate(
        "craftSticks",
        "Craft sticks from planks at the inventory grid",
        json!({"item": {"type": "string", "enum": ["stick"]}}),
        json!({"item": "stick"}),
        r#"export async function run(ctx: any, params: { item: "stick" }) {
  const crafted: { status: string; count?: number } = await ctx.craftItem(params.item);
  return { status: crafted.status === "crafted" ? "ok" : "failed", count: crafted.count };
}
"#,
        &["craftItem"],
        20_000,
        json!({"kind": "helper_result_status", "helper": "craftItem", "status": "crafted"}),
        &["missing ingredients: no planks"],
    );
    let done = define_and_trial(&mut bot, &c);
    let ev = promoted(&mut bot, &done);
    peer_event(&mut peer, "crafted", |v| v["item"] == "stick" && v["count"] == 4);
    // The recorded trial replays offline through the same prelude: same calls, events, verdict.
    let report = clawcraft_skills::replay::replay(&ev).expect("replay");
    assert!(report.matches() && report.calls >= 1, "{report:?}");

    // 4. craftItem (a crafting table) — verifier inventory_contains; the wrapped form of
    // author_mineflayer_action (candidate + runtime_parameters + codegen_rationale).
    let c = candidate(
        "craftCraftingTable",
        "Craft a crafting table from four planks",
        json!({"itemName": {"type": "string"}}),
        json!({"itemName": "crafting_table"}),
        r#"export async function run(ctx: any, params: { itemName: string }): Promise<object> {
  const r = await ctx.craftItem(params.itemName);
  return r?.status === "crafted" ? { status: "ok" } : { status: "failed", code: r?.code };
}
"#,
        &["craftItem"],
        20_000,
        json!({"kind": "inventory_contains", "item": "crafting_table"}),
        &["missing ingredients"],
    );
    let r = ok(
        &mut bot,
        json!({"action": "author_mineflayer_action", "candidate": c, "runtime_parameters": {"itemName": "crafting_table"},
               "codegen_rationale": "a table is needed for 3x3 recipes"}),
    );
    assert_eq!(r["codegenRationale"], "a table is needed for 3x3 recipes", "{r}");
    let done = finished(&mut bot, &r["trial"]["run"]);
    promoted(&mut bot, &done);
    peer_event(&mut peer, "crafted", |v| v["item"] == "crafting_table");

    // 5. placeBlock (the table) + position — verifier world_scan of the placed block.
    walk_to(&mut bot, 0.5, 0.5);
    let c = candidate(
        "placeCraftingTable",
        "Place a crafting table two blocks south of the bot's feet",
        json!({"item": {"type": "string"}, "offsetZ": {"type": "integer", "minimum": 1, "maximum": 3}}),
        json!({"item": "crafting_table", "offsetZ": 2}),
        r#"type Vec3 = { x: number; y: number; z: number };

export async function run(ctx: any, params: { item: string; offsetZ: number }) {
  const here = ctx.position() as Vec3;
  const target: Vec3 = { x: Math.floor(here.x), y: Math.floor(here.y), z: Math.floor(here.z) + params.offsetZ };
  const placed = await ctx.placeBlock(params.item, target);
  return { status: placed.status === "placed" || placed.status === "already_present" ? "ok" : "failed", target, placed: placed.status };
}
"#,
        &["position", "placeBlock"],
        20_000,
        json!({"kind": "world_scan", "block": "crafting_table", "radius": 4}),
        &["target cell occupied", "no support under the target", "missing item crafting_table"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    assert_eq!(done["result"]["target"], json!({"x": 0, "y": -60, "z": 2}), "{done}");
    assert_eq!(done["checks"]["observed"]["count"], 1, "{done}");
    let p = peer_event(&mut peer, "block_placed", |v| v["pos"] == json!({"x": 0, "y": -60, "z": 2}));
    assert_eq!(p["block"], "crafting_table", "{p}");

    // 6. craftWithTable (a wooden pickaxe at the placed table) — verifier inventory_delta.
    let c = candidate(
        "craftWoodenPickaxe",
        "Craft a wooden pickaxe at a placed crafting table in reach",
        json!({"tool": {"type": "string"}}),
        json!({"tool": "wooden_pickaxe"}),
        r#"export async function run(ctx: any, params: { tool: string }) {
  const result = await ctx.craftWithTable(params.tool);
  if (result.status !== "crafted") return { status: "failed", code: result.code, reason: result.reason };
  return { status: "ok", table: result.table };
}
"#,
        &["craftWithTable"],
        20_000,
        json!({"kind": "inventory_delta", "itemName": "wooden_pickaxe", "count": 1}),
        &["no crafting table within reach", "missing ingredients"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    assert_eq!(done["result"]["table"], json!({"x": 0, "y": -60, "z": 2}), "{done}");
    let p = peer_event(&mut peer, "container_opened", |v| v["block"] == "crafting_table");
    assert_eq!(p["pos"], json!({"x": 0, "y": -60, "z": 2}), "{p}");
    peer_event(&mut peer, "crafted", |v| v["item"] == "wooden_pickaxe");

    // 7. mineBlock (stone with the new pickaxe) — verifier block_or_inventory_delta.
    let c = candidate(
        "mineNearbyStone",
        "Mine a number of stone blocks near the bot for cobblestone",
        json!({"blockName": {"type": "string"}, "count": {"type": "integer", "minimum": 1, "maximum": 3},
               "searchDistance": {"type": "integer", "minimum": 1, "maximum": 16}}),
        json!({"blockName": "stone", "count": 2, "searchDistance": 8}),
        r#"export async function run(ctx: any, params: { blockName: string; count: number; searchDistance: number }) {
  const r = await ctx.mineBlock(params.blockName, params.count, params.searchDistance);
  return r.status === "mined" ? { status: "ok", mined: r.mined } : { status: "failed", code: r.code, reason: r.reason };
}
"#,
        &["mineBlock"],
        60_000,
        json!({"kind": "block_or_inventory_delta", "item": "cobblestone", "count": 2}),
        &["no stone found within search distance", "stone unreachable"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    assert_eq!(done["checks"]["observed"]["inventoryDelta"], 2.0, "{done}");
    for _ in 0..2 {
        let b = peer_event(&mut peer, "block_broken", |v| v["block"] == "stone");
        assert_eq!((b["tool"].clone(), b["drops"].clone()), (json!("wooden_pickaxe"), json!(["cobblestone"])), "{b}");
    }

    // 8. observe (a compact state) + position — verifier world_scan without a block.
    let c = candidate(
        "surveySurroundings",
        "Observe the surroundings and report the notable blocks nearby",
        json!({"radius": {"type": "integer", "minimum": 1, "maximum": 8}}),
        json!({"radius": 4}),
        r#"interface Observation { status: string; worldStateSummary: { counts: Record<string, number>; notable: Array<{ name: string }> } }

export async function run(ctx: any, params: { radius: number }) {
  const seen = (await ctx.observe({ radius: params.radius })) as Observation;
  const here = ctx.position();
  const notable = seen.worldStateSummary.notable.map((b) => b.name);
  return { status: "ok", at: here, notable, kinds: Object.keys(seen.worldStateSummary.counts).length };
}
"#,
        &["observe", "position"],
        10_000,
        json!({"kind": "world_scan", "description": "a loaded scan around the bot"}),
        &["chunks not loaded"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    let notable = done["result"]["notable"].as_array().cloned().unwrap_or_default();
    assert!(notable.contains(&json!("crafting_table")), "the placed table is seen: {done}");

    // 9. observe a container — verifier container_snapshot (the chest's contents, from the server).
    let c = candidate(
        "inspectChest",
        "Look into a chest and report whether it holds fuel",
        json!({"chest": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {"type": "integer"}},
                         "required": ["x", "y", "z"], "additionalProperties": false}}),
        json!({"chest": {"x": -2, "y": -60, "z": 2}}),
        r#"type Slot = { slot: number; name: string; count: number };

export async function run(ctx: any, params: { chest: { x: number; y: number; z: number } }) {
  const seen = await ctx.observe({ container: params.chest });
  const items: Slot[] = seen.container?.items ?? [];
  const coal = items.filter((s) => s.name === "coal").reduce((n, s) => n + s.count, 0);
  return { status: items.length > 0 ? "ok" : "failed", coal, items: items.map((s) => s.name) };
}
"#,
        &["observe"],
        10_000,
        json!({"kind": "container_snapshot", "block": "chest", "item": "coal", "count": 2}),
        &["chest out of reach", "no container at the position"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    assert_eq!(done["result"]["items"], json!(["iron_ore", "coal", "apple"]), "{done}");
    peer_event(&mut peer, "container_opened", |v| v["block"] == "chest");

    // 10. consumeItem — an apple from the chest first (the agent's own commands), then eaten.
    let r = ok(&mut bot, json!({"action": "open", "x": -2, "y": -60, "z": 2}));
    bot.wait(|v| v["type"] == "open_done" && v["id"] == r["id"], PEER).expect("open_done");
    let r = ok(&mut bot, json!({"action": "take", "item": "apple", "count": 1}));
    let d = bot.wait(|v| v["type"] == "take_done" && v["id"] == r["id"], PEER).expect("take_done");
    assert_eq!(d["status"], "done", "{d}");
    ok(&mut bot, json!({"action": "close"}));
    bot.wait_event("container_closed", ANSWER).expect("container_closed");
    let c = candidate(
        "eatFood",
        "Eat one food item from the inventory",
        json!({"food": {"type": "string"}}),
        json!({"food": "apple"}),
        r#"export async function run(ctx: any, params: { food: string }) {
  const eaten = await ctx.consumeItem(params.food);
  return { status: eaten.status === "consumed" ? "ok" : "failed", code: eaten.code, hunger: eaten.hunger };
}
"#,
        &["consumeItem"],
        10_000,
        json!({"kind": "helper_result_status", "helper": "consumeItem", "status": "consumed"}),
        &["not hungry", "missing item"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    let ate = peer_event(&mut peer, "ate", |v| v["item"] == "apple");
    assert!(ate["hunger"].as_f64() > ate["hunger_before"].as_f64(), "{ate}");

    // 11. say + wait — verifier helper_event_progress (say → delivered).
    let c = candidate(
        "announceProgress",
        "Announce a short progress line in chat",
        json!({"text": {"type": "string", "minLength": 1, "maxLength": 80}}),
        json!({"text": "wooden pickaxe ready"}),
        r#"export async function run(ctx: any, params: { text: string }): Promise<{ status: string }> {
  await ctx.wait({ durationMs: 250 });
  const said = await ctx.say(params.text);
  return { status: said.status === "delivered" ? "ok" : "failed" };
}
"#,
        &["say", "wait"],
        10_000,
        json!({"kind": "helper_event_progress"}),
        &["chat not delivered"],
    );
    let done = define_and_trial(&mut bot, &c);
    let ev = promoted(&mut bot, &done);
    assert_eq!(helper_trace(&ev), [("wait".to_owned(), "ok".to_owned()), ("say".to_owned(), "delivered".to_owned())]);
    assert!(ev["helperEvents"][0]["resolvedTick"].as_u64().is_some_and(|t| t >= 5), "waited 5 ticks: {ev}");
    assert!(
        peer.wait_log(
            |p| p.iter().any(|x| x["name"] == "text" && x["params"]["message"] == "wooden pickaxe ready"),
            PEER
        ),
        "the peer received the line"
    );
    // A promoted seed skill runs again with other parameters.
    let r = ok(&mut bot, json!({"action": "skill_run", "skill": "announceProgress", "parameters": {"text": "again"}}));
    let run = finished(&mut bot, &r["run"]);
    assert_eq!(run["verdict"], "passed", "{run}");

    // 12. the bounded mineflayer bridge — verifier helper_event.
    let c = candidate(
        "stepAndLook",
        "Face the crafting table, step forward briefly, hold the pickaxe and report",
        json!({"stepMs": {"type": "integer", "minimum": 50, "maximum": 2000}}),
        json!({"stepMs": 500}),
        r#"export async function run(ctx: any, params: { stepMs: number }) {
  const looked = await ctx.mineflayer("lookAtNearestBlock", { blockName: "crafting_table", maxDistance: 8 });
  const start = ctx.position();
  await ctx.mineflayer("setControlState", ["forward", true]);
  await ctx.wait({ durationMs: params.stepMs });
  const cleared = await ctx.mineflayer("clearControlStates", []);
  const end = ctx.position();
  const held = await ctx.mineflayer("equipByName", { name: "wooden_pickaxe" });
  await ctx.mineflayer("lookAt", { x: end.x, y: end.y + 1.62, z: end.z + 4 });
  const swing = await ctx.mineflayer("swingArm", {});
  await ctx.mineflayer("deactivateItem", []);
  await ctx.mineflayer("chat", ["bridge done"]);
  const moved = Math.hypot(end.x - start.x, end.z - start.z);
  return { status: "ok", looked: looked.status, cleared: cleared.cleared, held: held.status, swing: swing.status, moved };
}
"#,
        &["mineflayer", "position", "wait"],
        15_000,
        json!({"kind": "helper_event", "helper": "mineflayer"}),
        &["control state not released"],
    );
    let done = define_and_trial(&mut bot, &c);
    let ev = promoted(&mut bot, &done);
    let res = &done["result"];
    assert_eq!(
        (res["looked"].clone(), res["cleared"].clone(), res["held"].clone()),
        (json!("ok"), json!(true), json!("ok")),
        "{done}"
    );
    assert_eq!(res["swing"], "ok", "{done}");
    assert!(
        peer.wait_log(
            |p| p.iter().any(|x| x["name"] == "animate"
                && x["params"]["action_id"] == "swing_arm"
                && x["params"]["swing_source"] == "none"),
            PEER
        ),
        "the peer saw the arm swing"
    );
    assert!(res["moved"].as_f64().is_some_and(|m| m > 0.3), "the forward control moved the bot: {done}");
    // The control state was a `move` the bridge released with abort_walk.
    let calls: Vec<&str> =
        ev["helperCalls"].as_array().into_iter().flatten().filter_map(|c| c["helper"].as_str()).collect();
    assert!(calls.contains(&"move") && calls.contains(&"abort_walk"), "{calls:?}");
    assert!(
        peer.wait_log(|p| p.iter().any(|x| x["name"] == "text" && x["params"]["message"] == "bridge done"), PEER),
        "the bridge's chat reached the peer"
    );

    // 13. buildPattern (two cobblestone blocks from an origin) — verifier block_or_inventory_delta.
    walk_to(&mut bot, 0.5, 0.5);
    let c = candidate(
        "buildCobbleMarker",
        "Build a two-block cobblestone marker at an origin",
        json!({"origin": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {"type": "integer"}},
                          "required": ["x", "y", "z"], "additionalProperties": false},
               "item": {"type": "string"}}),
        json!({"origin": {"x": -1, "y": -60, "z": -4}, "item": "cobblestone"}),
        r#"type Offset = { x: number; y: number; z: number };

export async function run(ctx: any, params: { origin: Offset; item: string }) {
  const blocks: Offset[] = [{ x: 0, y: 0, z: 0 }, { x: 0, y: 1, z: 0 }];
  const built = await ctx.buildPattern({ origin: params.origin, item: params.item, blocks });
  return { status: built.status === "built" ? "ok" : "failed", placed: built.placed, code: built.code };
}
"#,
        &["buildPattern"],
        30_000,
        json!({"kind": "block_or_inventory_delta", "item": "cobblestone", "count": 2}),
        &["no support for the pattern", "missing item cobblestone"],
    );
    let done = define_and_trial(&mut bot, &c);
    promoted(&mut bot, &done);
    assert_eq!(done["result"]["placed"], 2, "{done}");
    for y in [-60, -59] {
        let p = peer_event(&mut peer, "block_placed", |v| v["pos"] == json!({"x": -1, "y": y, "z": -4}));
        assert_eq!(p["block"], "cobblestone", "{p}");
    }

    // 14. A control state still held when the skill returns is released by the run's end.
    let c = candidate(
        "nudgeForward",
        "Start walking forward and hand control back at once",
        json!({"durationMs": {"type": "integer", "minimum": 50, "maximum": 5000}}),
        json!({"durationMs": 3000}),
        r#"export async function run(ctx: any, params: { durationMs: number }) {
  const r = await ctx.mineflayer("setControlState", { control: "forward", state: true, durationMs: params.durationMs });
  return { status: r.status, releaseAfterMs: r.releaseAfterMs };
}
"#,
        &["mineflayer"],
        10_000,
        json!({"kind": "helper_result_status", "helper": "mineflayer", "status": "ok"}),
        &["control state not released"],
    );
    let done = define_and_trial(&mut bot, &c);
    let ev = promoted(&mut bot, &done);
    assert_eq!(done["result"]["releaseAfterMs"], 3000, "{done}");
    assert!(done["ticks"].as_u64().is_some_and(|t| t < 20), "returned without waiting for the release: {done}");
    let moved = ev["helperCalls"].as_array().into_iter().flatten().find(|c| c["helper"] == "move").expect("a move");
    assert_eq!(
        (moved["result"]["status"].clone(), moved["result"]["code"].clone()),
        (json!("aborted"), json!("cancelled")),
        "the run's end released the control: {moved}"
    );
    let r = bot.request(json!({"action": "abort_walk"}), ANSWER).expect("answer");
    assert_eq!(r["code"], "NOT_ACTIVE", "nothing is still walking: {r}");

    // 15. A candidate that fails its trial: the report names which known_failure_modes matched.
    walk_to(&mut bot, 0.5, 0.5);
    let c = candidate(
        "craftIronPickaxe",
        "Craft an iron pickaxe at the placed table",
        json!({"tool": {"type": "string"}}),
        json!({"tool": "iron_pickaxe"}),
        r#"export async function run(ctx: any, params: { tool: string }) {
  const r = await ctx.craftWithTable(params.tool);
  return { status: r.status === "crafted" ? "ok" : "failed", code: r.code };
}
"#,
        &["craftWithTable"],
        20_000,
        json!({"kind": "inventory_delta", "item": "iron_pickaxe", "count": 1}),
        &["missing ingredients (no iron ingots)", "no crafting table within reach"],
    );
    let done = define_and_trial(&mut bot, &c);
    assert_eq!(
        (done["verdict"].clone(), done["lifecycle"]["after"].clone()),
        (json!("failed"), json!("rejected")),
        "{done}"
    );
    assert_eq!(done["failure"]["matchedKnownFailureModes"], json!(["missing ingredients (no iron ingots)"]), "{done}");
    assert_eq!(done["failure"]["unexpected"], false, "{done}");
    assert!(
        done["failure"]["blockers"][0]
            .as_str()
            .is_some_and(|b| b.starts_with("craftWithTable: missing_ingredients — ")),
        "{done}"
    );

    // The library holds the fourteen promoted seed skills under their seed ids.
    let list = ok(&mut bot, json!({"action": "skill_list", "state": "promoted"}));
    assert_eq!(list["count"], 14, "{list}");
}
