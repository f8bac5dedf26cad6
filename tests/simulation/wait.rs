//! `"wait"` on a request: the answer of an action comes when it ends, carrying its completion
//! event (still emitted too); a wait that runs out answers that the action still runs and how to
//! abort it; a bad `wait` is refused and starts nothing.

use clawcraft::core::Position;
use clawcraft::sim::Simulation;
use clawcraft::simworld::SimWorld;
use serde_json::{Map, Value, json};

/// Ticks until the response with `id` arrives (at most `limit`): the response and the ticks run.
fn tick_until_answer(sim: &mut Simulation, id: &str, limit: usize) -> (Option<Map<String, Value>>, usize) {
    let mut seen = Vec::new();
    for t in 1..=limit {
        sim.tick();
        seen.extend(sim.take_responses());
        if let Some(r) = seen.iter().find(|r| r["id"] == id) {
            return (Some(r.clone()), t);
        }
    }
    (None, limit)
}

fn done_events(sim: &Simulation, kind: &str, id: &str) -> Vec<Map<String, Value>> {
    sim.events().into_iter().filter(|e| e["type"] == kind && e["id"] == id).collect()
}

#[test]
fn a_waiting_move_is_answered_when_it_ends_with_its_completion() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"move","x":8.5,"y":-60,"z":0.5,"id":"w","wait":true}"#);
    let (answer, ticks) = tick_until_answer(&mut sim, "w", 200);
    let answer = answer.expect("answered when the move ended");
    assert!(ticks > 20, "8 blocks take ~40 ticks: the answer waited ({ticks} ticks)");
    assert_eq!(answer["moving"], true, "the move's own answer: {answer:?}");
    let completion = &answer["completion"];
    assert_eq!(
        (&completion["type"], &completion["id"], &completion["status"]),
        (&json!("walk_done"), &json!("w"), &json!("done"))
    );
    let events = done_events(&sim, "walk_done", "w");
    assert_eq!(events.len(), 1, "the event is still emitted, once");
    assert_eq!(events[0]["pos"], completion["pos"], "the same fields as the event");
    assert!(answer.get("warnings").is_none(), "wait is no unknown parameter: {answer:?}");
    let end = sim.component::<Position>().expect("pos").0;
    assert!((end.x - 8.5).abs() < 0.15, "{end:?}");
}

#[test]
fn a_wait_that_runs_out_says_the_action_runs_and_how_to_abort_it() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"move","x":12.5,"y":-60,"z":0.5,"id":"short","wait":100}"#);
    let (answer, ticks) = tick_until_answer(&mut sim, "short", 50);
    let answer = answer.expect("answered when the wait ran out");
    assert!((2..=4).contains(&ticks), "100 ms is two ticks, answered after {ticks}");
    assert_eq!(
        (&answer["running"], &answer["abort"], &answer["waitedMs"]),
        (&json!(true), &json!("abort_walk"), &json!(100))
    );
    assert!(answer.get("completion").is_none(), "{answer:?}");
    assert!(done_events(&sim, "walk_done", "short").is_empty(), "still walking");
    // The action runs on and ends with its event as usual.
    for _ in 0..120 {
        sim.tick();
        if !done_events(&sim, "walk_done", "short").is_empty() {
            break;
        }
    }
    assert_eq!(done_events(&sim, "walk_done", "short")[0]["status"], "done");
    assert!(sim.take_responses().iter().all(|r| r["id"] != "short"), "one answer only");
}

#[test]
fn a_bad_wait_is_refused_and_starts_nothing() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    let start = sim.component::<Position>().expect("pos").0;
    for (wait, code) in
        [("\"soon\"", "INVALID_PARAMS"), ("0", "OUT_OF_RANGE"), ("-5", "OUT_OF_RANGE"), ("99999999", "OUT_OF_RANGE")]
    {
        let r = sim.command(&format!(r#"{{"action":"move","x":8.5,"y":-60,"z":0.5,"wait":{wait}}}"#));
        assert_eq!(r["code"], code, "wait {wait}: {r:?}");
    }
    sim.ticks(10);
    assert_eq!(sim.component::<Position>().expect("pos").0, start, "no move started");
    assert!(sim.events().iter().all(|e| e["type"] != "walk_done"));
    // A command that is no action answers at once, wait or not.
    sim.ticks(1);
    let r = sim.command(r#"{"action":"pos","wait":true}"#);
    assert!(r["pos"].is_object() && r.get("warnings").is_none(), "{r:?}");
}

#[test]
fn a_refused_action_is_answered_at_once_even_when_waiting() {
    let world = SimWorld::flat(2);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"move","x":30.5,"y":-60,"z":0.5,"id":"first"}"#);
    sim.tick();
    // The walk slot is taken: BUSY, answered in the same tick.
    let _ = sim.take_responses();
    sim.queue_command(r#"{"action":"move","x":2.5,"y":-60,"z":0.5,"id":"second","wait":true}"#);
    sim.tick();
    let responses = sim.take_responses();
    let second = responses.iter().find(|r| r["id"] == "second").expect("answered in the tick");
    assert_eq!(second["code"], "BUSY", "{second:?}");
}

#[test]
fn a_waiting_walk_holds_its_answer_through_an_off_thread_search() {
    // A goal past the inline-search distance is searched on the task pool: the walk's first
    // answer is deferred, and with wait it is held until the walk ends.
    let world = SimWorld::flat(3);
    let mut sim = world.spawn([0.5, -60.0, 0.5]);
    sim.queue_command(r#"{"action":"walk","x":30.5,"y":-60,"z":0.5,"id":"far","wait":true}"#);
    let (answer, ticks) = tick_until_answer(&mut sim, "far", 400);
    let answer = answer.expect("answered when the walk ended");
    assert!(ticks > 100, "30 blocks take ~140 ticks: the answer waited ({ticks} ticks)");
    assert_eq!(answer["completion"]["type"], "walk_done", "{answer:?}");
    assert_eq!(answer["completion"]["status"], "done", "{answer:?}");
    assert_eq!(
        (&answer["walking"], &answer["complete"]),
        (&json!(true), &json!(true)),
        "the walk's own answer: {answer:?}"
    );
    assert_eq!(done_events(&sim, "walk_done", "far").len(), 1);
}
