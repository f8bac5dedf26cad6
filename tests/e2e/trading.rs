//! End to end against the peer's trade scenario (`tests/peer/trade.js`): a novice farmer next to
//! the spawn (wheat → emerald at a demand-raised price, emerald → bread with three uses left, an
//! apple offer locked at tier 1) and a wandering trader out of reach. The real binary opens the
//! farmer's trade window (UpdateTrade), buys bread twice, sells wheat, stops early when the offer
//! is used up and when the payment runs out, and is refused with a stable code for a trader out of
//! reach, a mob that does not trade, a bad offer index, a locked or used-up offer and a missing
//! payment — every receipt checked against the peer's own account of the trades and against the
//! inventory the server confirmed.

use crate::common;

use std::time::{Duration, Instant};

use common::{Bot, Peer};
use serde_json::{Value, json};

const SPAWN: Duration = Duration::from_secs(40);
const ANSWER: Duration = Duration::from_secs(10);
const DONE: Duration = Duration::from_secs(20);

fn ok(bot: &mut Bot, cmd: Value) -> Value {
    bot.ok(cmd)
}

fn refused(bot: &mut Bot, cmd: Value) -> String {
    let r = bot.request(cmd.clone(), ANSWER).unwrap_or_else(|| panic!("no answer to {cmd}"));
    r["code"].as_str().unwrap_or_else(|| panic!("{cmd} was not refused: {r}")).to_owned()
}

/// The completion of the action the command started, waited for in the same call.
fn act(bot: &mut Bot, mut cmd: Value) -> Value {
    cmd["wait"] = json!(true);
    let r = bot.request(cmd.clone(), DONE).unwrap_or_else(|| panic!("no answer to {cmd}"));
    assert!(r.get("error").is_none(), "{cmd} failed: {r}");
    r["completion"].clone()
}

fn count(bot: &mut Bot, name: &str) -> u64 {
    let inv = bot.request(json!({"action":"inventory","view":"summary"}), ANSWER).expect("inventory");
    inv["summary"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|i| i["name"] == format!("minecraft:{name}"))
        .map_or(0, |i| i["totalCount"].as_u64().unwrap_or(0))
}

/// Waits until the inventory shows `n` of `name` (the server's slot updates may trail its answer).
fn expect_count(bot: &mut Bot, name: &str, n: u64) {
    let deadline = Instant::now() + ANSWER;
    loop {
        let c = count(bot, name);
        if c == n {
            return;
        }
        assert!(Instant::now() < deadline, "{name}: {c} in the inventory, expected {n}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn traded(peer: &mut Peer) -> Value {
    peer.wait_line(|v| v["event"] == "traded", DONE).expect("the peer traded")
}

/// Starts the trade peer and a bot; waits for the villager and the inventory.
pub fn trade_peer(name: &str) -> (Peer, Bot, Value) {
    let mut peer = Peer::start("trade");
    let mut bot = Bot::start(peer.port, name);
    bot.wait_event("spawn", SPAWN).expect("spawn");
    let ready = peer.wait_line(|v| v["event"] == "trade_ready", SPAWN).expect("trade ready");
    let deadline = Instant::now() + DONE;
    while count(&mut bot, "emerald") != 3
        || bot.request(json!({"action":"nearby"}), ANSWER).is_none_or(|r| !r.to_string().contains("villager_v2"))
    {
        assert!(Instant::now() < deadline, "the inventory or the villager never arrived");
        std::thread::sleep(Duration::from_millis(100));
    }
    (peer, bot, ready)
}

#[test]
fn a_farmer_sells_bread_and_buys_wheat_with_every_trade_confirmed_by_the_server() {
    let (mut peer, mut bot, ready) = trade_peer("Trader");

    // Refusals before anything is sent: no trade window yet, a trader out of reach, a zombie.
    assert_eq!(refused(&mut bot, json!({"action":"trade","offer":0})), "NO_CONTAINER");
    assert_eq!(refused(&mut bot, json!({"action":"trade_open","entity":"wandering_trader"})), "OUT_OF_REACH");
    assert_eq!(refused(&mut bot, json!({"action":"trade_open","entity":"zombie"})), "INVALID_TARGET");

    // Open: the offers are the peer's, with the demand-raised price and uses left.
    let d = act(&mut bot, json!({"action":"trade_open"}));
    assert_eq!(
        (d["type"].clone(), d["status"].clone(), d["confirmed"].clone()),
        (json!("trade_open_done"), json!("done"), json!(true)),
        "{d}"
    );
    assert_eq!(d["villager"]["runtimeId"].to_string(), ready["villager"].as_str().expect("villager id"), "{d}");
    let opened = peer.wait_line(|v| v["event"] == "trade_opened", DONE).expect("the peer opened the window");
    let offers = d["offers"].as_array().expect("offers").clone();
    let truth = opened["offers"].as_array().expect("peer offers").clone();
    assert_eq!(offers.len(), truth.len(), "{d}");
    for (o, t) in offers.iter().zip(&truth) {
        assert_eq!(o["wants"]["name"], format!("minecraft:{}", t["wants"].as_str().expect("wants")), "{o} vs {t}");
        assert_eq!(
            (o["wants"]["count"].clone(), o["basePrice"].clone()),
            (t["price"].clone(), t["base"].clone()),
            "{o}"
        );
        assert_eq!(o["gives"]["count"], t["count"], "{o}");
        assert_eq!(
            o["usesLeft"],
            json!(t["max_uses"].as_i64().expect("max") - t["uses"].as_i64().expect("uses")),
            "{o}"
        );
    }
    assert_eq!(
        (offers[0]["wants"]["count"].clone(), offers[0]["priceChange"].clone()),
        (json!(22), json!(2)),
        "demand 2 × 0.05 on 20 wheat"
    );
    assert_eq!(
        (offers[1]["gives"]["name"].clone(), offers[1]["usesLeft"].clone(), offers[1]["canAfford"].clone()),
        (json!("minecraft:bread"), json!(3), json!(3))
    );
    assert_eq!((offers[2]["locked"].clone(), offers[2]["tier"].clone()), (json!(true), json!(1)), "{d}");

    // Bad index, a locked offer.
    assert_eq!(refused(&mut bot, json!({"action":"trade","offer":9})), "NO_OFFER");
    assert_eq!(refused(&mut bot, json!({"action":"trade","offer":2})), "OFFER_UNAVAILABLE");

    // Buy bread twice: two trades, each confirmed; the inventory and the uses are the server's.
    let d = act(&mut bot, json!({"action":"trade","item":"bread","times":2}));
    assert_eq!(
        (d["type"].clone(), d["status"].clone(), d["trades"].clone()),
        (json!("trade_done"), json!("done"), json!(2)),
        "{d}"
    );
    assert_eq!(d["gave"], json!([{"name":"minecraft:emerald","count":2}]), "{d}");
    assert_eq!(d["got"], json!([{"name":"minecraft:bread","count":12}]), "{d}");
    assert_eq!(d["usesLeft"], 1, "{d}");
    for n in [14, 15] {
        let t = traded(&mut peer);
        assert_eq!((t["index"].clone(), t["uses"].clone()), (json!(1), json!(n)), "{t}");
    }
    expect_count(&mut bot, "emerald", 1);
    expect_count(&mut bot, "bread", 12);
    let r = ok(&mut bot, json!({"action":"trades"}));
    assert_eq!(r["offers"][1]["usesLeft"], 1, "{r}");

    // Sell wheat at the raised price: 22 wheat for an emerald.
    let d = act(&mut bot, json!({"action":"trade","offer":0}));
    assert_eq!(
        (d["status"].clone(), d["gave"].clone()),
        (json!("done"), json!([{"name":"minecraft:wheat","count":22}])),
        "{d}"
    );
    let t = traded(&mut peer);
    assert_eq!(t["gave"], json!([{"name":"wheat","count":22}]), "{t}");
    expect_count(&mut bot, "wheat", 28);
    expect_count(&mut bot, "emerald", 2);

    // Three more bread: one use is left, so one trade and a clear stop.
    let d = act(&mut bot, json!({"action":"trade","item":"bread","times":3}));
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["trades"].clone()),
        (json!("failed"), json!("used_up"), json!(1)),
        "{d}"
    );
    assert_eq!(d["usesLeft"], 0, "{d}");
    assert_eq!(traded(&mut peer)["uses"], 16);
    assert_eq!(refused(&mut bot, json!({"action":"trade","item":"bread"})), "OFFER_UNAVAILABLE");
    expect_count(&mut bot, "bread", 18);

    // Wheat twice with 28 wheat: one trade, then the payment runs out.
    let d = act(&mut bot, json!({"action":"trade","offer":0,"times":2}));
    assert_eq!(
        (d["status"].clone(), d["reason"].clone(), d["trades"].clone()),
        (json!("failed"), json!("out_of_payment"), json!(1)),
        "{d}"
    );
    traded(&mut peer);
    expect_count(&mut bot, "wheat", 6);
    assert_eq!(refused(&mut bot, json!({"action":"trade","offer":0})), "MISSING_PAYMENT");

    // Close: the peer closes the window; trading needs a new trade_open.
    let r = ok(&mut bot, json!({"action":"close"}));
    assert_eq!(r["windowId"], "7", "{r}");
    peer.wait_line(|v| v["event"] == "trade_closed", DONE).expect("the peer closed the window");
    let deadline = Instant::now() + ANSWER;
    while bot.request(json!({"action":"trades"}), ANSWER).is_some_and(|r| r.get("code").is_none()) {
        assert!(Instant::now() < deadline, "the trade window never closed");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(refused(&mut bot, json!({"action":"trades"})), "NO_CONTAINER");
}
