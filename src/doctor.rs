//! `clawcraft doctor`: a read-only health check of the user's own server.
//!
//! It connects with the configured settings (host, port, username, `--game-version`), waits for
//! the spawn, lets the chunks around it arrive, then stands still for `--duration` seconds and
//! asks the server `/list` (read-only). It reports, as one JSON object on stdout (and a short
//! summary on stderr): the version picked and why, the login mode, the connect → spawn time, the
//! columns and sub-chunks decoded, the share of block ids in them that resolve to names (the
//! palette check), corrections per minute while standing still, whether the server command
//! answered, and every decode error. It exits 0 when all is well and 1 otherwise.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_app::{App, AppExit, Last, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{AppWorkExt, BotStats, CommandResponse, Lifecycle, PendingCommands, parse_request};
use clawcraft_network::{Connection, ConnectionClosed, DecodeErrors, ShutdownRequest};
use serde_json::{Map, Value, json};
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt;

use crate::config::Config;

/// How long after the spawn the sub-chunk requests may take before measuring.
const SETTLE: Duration = Duration::from_secs(2);
/// The read-only server command whose answer shows that commands work.
const PROBE_COMMAND: &str = "/list";
/// Origin of the doctor's own command request.
const DOCTOR_ORIGIN: u64 = u64::MAX - 7;

/// What the doctor was asked to do.
#[derive(Resource, Debug, Clone)]
pub struct DoctorSettings {
    /// `host:port` as configured, for the report.
    pub server: String,
    /// Standing still this long after the settle time.
    pub duration: Duration,
    /// Giving up on the spawn after this long.
    pub spawn_timeout: Duration,
    /// Online (Xbox Live) login.
    pub online: bool,
    /// `--offline-login` as configured.
    pub offline_login: clawcraft_protocol::login::OfflineLogin,
}

/// Progress of the check.
#[derive(Resource, Debug)]
struct Doctor {
    started: Instant,
    spawned: Option<Instant>,
    /// (start, corrections so far) of the standing-still window.
    window: Option<(Instant, u64)>,
    command: Option<Map<String, Value>>,
    closed: Option<String>,
    report: Option<Value>,
    /// Tick the report was printed; the app exits the tick after (so the goodbye leaves).
    reported_at: Option<u64>,
    tick: u64,
    /// Warnings and errors logged while checking.
    warnings: Arc<Mutex<Vec<String>>>,
}

/// The doctor's systems; added to an app that has the bot plugins.
pub struct DoctorPlugin {
    settings: DoctorSettings,
    warnings: Arc<Mutex<Vec<String>>>,
}

impl Plugin for DoctorPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.settings.clone())
            .insert_resource(Doctor {
                started: Instant::now(),
                spawned: None,
                window: None,
                command: None,
                closed: None,
                report: None,
                reported_at: None,
                tick: 0,
                warnings: self.warnings.clone(),
            })
            // After the tick's output is collected: a shutdown it asks for is carried out (and
            // the agent told) in the next tick, the one it exits in.
            .add_systems(
                Last,
                (observe, finish).chain().after(clawcraft_io::IoSet::Collect).in_set(clawcraft_core::gate::QuietAware),
            )
            // The probe follows the bot every tick (quiet ones too).
            .add_pending_work("doctor probing", |_| true);
    }
}

/// Follows the bot through spawn, settle and the standing-still window; sends the probe command.
fn observe(
    mut doctor: ResMut<Doctor>,
    bots: Query<(&Lifecycle, &BotStats)>,
    mut closed: MessageReader<ConnectionClosed>,
    mut responses: MessageReader<CommandResponse>,
    mut pending: ResMut<PendingCommands>,
) {
    doctor.tick += 1;
    let now = Instant::now();
    for c in closed.read() {
        doctor.closed.get_or_insert_with(|| c.reason.clone());
    }
    for r in responses.read().filter(|r| r.origin == DOCTOR_ORIGIN) {
        doctor.command = Some(r.body());
    }
    let Some((lifecycle, stats)) = bots.iter().next() else { return };
    if doctor.spawned.is_none() && *lifecycle == Lifecycle::Spawned {
        doctor.spawned = Some(now);
    }
    if let Some(spawned) = doctor.spawned
        && doctor.window.is_none()
        && now >= spawned + SETTLE
    {
        doctor.window = Some((now, stats.corrections));
        let line = json!({"action": "cmd", "cmd": PROBE_COMMAND, "id": "doctor"}).to_string();
        match parse_request(DOCTOR_ORIGIN, &line) {
            Ok(req) => pending.0.push_back(req),
            Err(resp) => doctor.command = Some(resp.body()),
        }
    }
}

/// Writes the report once there is enough to say, then leaves and exits.
fn finish(
    mut doctor: ResMut<Doctor>,
    settings: Res<DoctorSettings>,
    bots: Query<BotData>,
    mut shutdown: MessageWriter<ShutdownRequest>,
    mut exit: MessageWriter<AppExit>,
) {
    if let Some(at) = doctor.reported_at {
        if doctor.tick > at {
            let ok = doctor.report.as_ref().is_some_and(|r| r["ok"] == true);
            exit.write(if ok { AppExit::Success } else { AppExit::from_code(1) });
        }
        return;
    }
    let now = Instant::now();
    let measured = doctor.window.is_some_and(|(start, _)| now >= start + settings.duration);
    let answered_or_late =
        doctor.command.is_some() || doctor.window.is_some_and(|(start, _)| now >= start + settings.duration * 3);
    let timed_out = doctor.spawned.is_none() && now >= doctor.started + settings.spawn_timeout;
    if !(doctor.closed.is_some() || timed_out || (measured && answered_or_late)) {
        return;
    }
    let report = build_report(&doctor, &settings, bots.iter().next(), timed_out);
    print_report(&report);
    doctor.report = Some(report);
    doctor.reported_at = Some(doctor.tick);
    shutdown.write(ShutdownRequest);
}

/// What the report reads from the bot.
type BotData = (
    &'static Connection,
    &'static BotStats,
    Option<&'static clawcraft_world::chunk::World>,
    Option<&'static clawcraft_world::ids::BlockIds>,
    Option<&'static DecodeErrors>,
);

type BotView<'a> = (
    &'a Connection,
    &'a BotStats,
    Option<&'a clawcraft_world::chunk::World>,
    Option<&'a clawcraft_world::ids::BlockIds>,
    Option<&'a DecodeErrors>,
);

fn build_report(doctor: &Doctor, settings: &DoctorSettings, bot: Option<BotView<'_>>, timed_out: bool) -> Value {
    let mut problems: Vec<String> = Vec::new();
    let now = Instant::now();
    let version = bot.map(|(conn, ..)| version_json(conn)).unwrap_or(Value::Null);
    if let Some(reason) = &doctor.closed {
        problems.push(format!("disconnected: {reason}"));
    }
    if timed_out {
        problems.push(format!("no spawn within {} s", settings.spawn_timeout.as_secs()));
    }
    let spawn_ms = doctor.spawned.map(|s| s.duration_since(doctor.started).as_millis() as u64);

    // The world: columns, sub-chunks and the palette check.
    let (world, share) = match bot.and_then(|(_, _, w, ids, _)| w.zip(ids)) {
        Some((w, ids)) => world_json(w, ids),
        None => (Value::Null, None),
    };
    if doctor.spawned.is_some() {
        match share {
            Some(s) if s < 1.0 => problems.push(format!(
                "{:.1} % of the block ids in the loaded chunks have no name: the block palette does not match the version",
                (1.0 - s) * 100.0
            )),
            None => problems.push("no block data was decoded".into()),
            Some(_) => {}
        }
    }

    // Standing still.
    let standing = match (doctor.window, bot) {
        (Some((start, before)), Some((_, stats, ..))) => {
            let secs = now.duration_since(start).as_secs_f64().max(0.001);
            let corrections = stats.corrections.saturating_sub(before);
            let per_minute = corrections as f64 * 60.0 / secs;
            if corrections > 0 {
                problems.push(format!("{corrections} movement corrections while standing still"));
            }
            json!({"seconds": round1(secs), "corrections": corrections, "correctionsPerMinute": round1(per_minute)})
        }
        _ => Value::Null,
    };

    // The server command.
    let command = match &doctor.command {
        Some(body) => {
            // A `cmd` sent but unanswered is a success with `output: null` and a warning.
            let answered = body.get("error").is_none() && !body.get("output").is_some_and(Value::is_null);
            if !answered {
                let why = body
                    .get("error")
                    .or_else(|| body.get("warnings").and_then(|w| w.get(0)))
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                problems.push(format!("server command {PROBE_COMMAND} got no answer: {why}"));
            }
            json!({
                "command": PROBE_COMMAND,
                "answered": answered,
                "success": body.get("success").cloned().unwrap_or(Value::Null),
                "messages": body.get("messages").cloned().unwrap_or(Value::Null),
            })
        }
        None if doctor.window.is_some() => {
            problems.push(format!("server command {PROBE_COMMAND} got no answer"));
            json!({"command": PROBE_COMMAND, "answered": false})
        }
        None => Value::Null,
    };

    // Decode errors: packets that did not decode, and warnings logged meanwhile.
    let decode_errors: Vec<String> = bot.and_then(|(.., e)| e).map(|e| e.0.clone()).unwrap_or_default();
    let count = bot.map_or(0, |(_, stats, ..)| stats.decode_errors);
    if count > 0 {
        problems.push(format!("{count} packets did not decode"));
    }
    let warnings: Vec<String> = doctor.warnings.lock().map(|w| w.clone()).unwrap_or_default();

    json!({
        "ok": problems.is_empty(),
        "server": settings.server,
        "version": version,
        "login": login_json(settings, bot.and_then(|(conn, ..)| conn.login_report())),
        "connectToSpawnMs": spawn_ms,
        "world": world,
        "standingStill": standing,
        "commands": command,
        "decodeErrors": {"count": count, "last": decode_errors},
        "warnings": warnings,
        "problems": problems,
    })
}

/// The login mode: every supported version (protocol 944 and later) carries a multiplayer token
/// (self-signed offline, OIDC from the Minecraft services online) in Login's `Token`.
/// The login mode, and offline which shape the server accepted (`offlineShape`, null until it
/// accepted one) and, after an `auto` retry, which it refused first and why.
fn login_json(settings: &DoctorSettings, report: Option<&clawcraft_network::LoginReport>) -> Value {
    if settings.online {
        return json!({"mode": "online", "detail": "Xbox Live: certificate chain and OIDC multiplayer token (OFFLINE=false)"});
    }
    let accepted = report.and_then(|r| r.offline);
    let detail = match accepted {
        Some(clawcraft_protocol::login::OfflineShape::Token) => {
            "self-signed multiplayer token, no Xbox Live (OFFLINE=true)"
        }
        Some(clawcraft_protocol::login::OfflineShape::Chain) => {
            "self-signed certificate chain with extraData (the pre-1.26.10 shape), no Xbox Live (OFFLINE=true)"
        }
        None => "self-signed, no Xbox Live (OFFLINE=true); the server accepted no login",
    };
    let refused = report
        .and_then(|r| r.refused_first.as_ref())
        .map(|(shape, reason)| json!({"shape": shape.as_str(), "reason": reason}));
    json!({
        "mode": "offline",
        "setting": settings.offline_login.as_str(),
        "offlineShape": accepted.map(|s| s.as_str()),
        "refusedFirst": refused,
        "detail": detail,
    })
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn version_json(conn: &Connection) -> Value {
    let info = conn.protocol().info();
    let (source, server) = match conn.version_choice() {
        Some((choice, advertised)) => (
            Some(choice.source.as_str()),
            advertised.as_ref().map(|a| json!({"gameVersion": a.game_version, "protocol": a.protocol})),
        ),
        None => (None, None),
    };
    json!({"gameVersion": info.game_version, "protocol": info.protocol, "source": source, "server": server})
}

/// Columns, sub-chunks with data, and how many distinct block ids of their palettes resolve.
fn world_json(world: &clawcraft_world::chunk::World, ids: &clawcraft_world::ids::BlockIds) -> (Value, Option<f64>) {
    let mut sub_chunks = 0usize;
    let mut seen = std::collections::BTreeSet::new();
    for (cx, cz) in world.loaded_columns() {
        let Some(column) = world.column(cx, cz) else { continue };
        for sub in column.sub_chunks.iter().flatten() {
            sub_chunks += 1;
            for layer in &sub.layers {
                seen.extend(layer.palette().iter().copied());
            }
        }
    }
    let unresolved: Vec<u32> = seen.iter().copied().filter(|id| ids.0.state(*id).is_none()).collect();
    let share = (!seen.is_empty()).then(|| (seen.len() - unresolved.len()) as f64 / seen.len() as f64);
    let json = json!({
        "columns": world.column_count(),
        "subChunks": sub_chunks,
        "blockIds": seen.len(),
        "resolvedIds": seen.len() - unresolved.len(),
        "resolvedShare": share.map(|s| (s * 1000.0).round() / 1000.0),
        "unresolved": unresolved.iter().take(10).collect::<Vec<_>>(),
    });
    (json, share)
}

/// The report on stdout (one line) and a short summary on stderr.
fn print_report(report: &Value) {
    println!("{report}");
    let ok = report["ok"] == true;
    let v = &report["version"];
    let mut lines = vec![format!(
        "clawcraft doctor: {} — {} Bedrock {} (protocol {}, {})",
        if ok { "OK" } else { "PROBLEMS" },
        report["server"].as_str().unwrap_or("?"),
        v["gameVersion"].as_str().unwrap_or("?"),
        v["protocol"],
        v["source"].as_str().unwrap_or("not chosen")
    )];
    if let Some(ms) = report["connectToSpawnMs"].as_u64() {
        lines.push(format!("  spawned {ms} ms after connecting"));
    }
    let w = &report["world"];
    if w.is_object() {
        lines.push(format!(
            "  {} columns, {} sub-chunks; {} of {} block ids named",
            w["columns"], w["subChunks"], w["resolvedIds"], w["blockIds"]
        ));
    }
    if let Some(c) = report["standingStill"]["correctionsPerMinute"].as_f64() {
        lines.push(format!("  {c} corrections per minute standing still"));
    }
    if report["commands"].is_object() {
        let answered = report["commands"]["answered"] == true;
        lines.push(format!("  {PROBE_COMMAND}: {}", if answered { "answered" } else { "no answer" }));
    }
    for p in report["problems"].as_array().into_iter().flatten() {
        lines.push(format!("  problem: {}", p.as_str().unwrap_or_default()));
    }
    eprintln!("{}", lines.join("\n"));
}

/// Collects warning and error logs (message and fields) for the report.
struct Capture(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        if *event.metadata().level() > tracing::Level::WARN {
            return;
        }
        let mut text = String::new();
        event.record(&mut FieldText(&mut text));
        if let Ok(mut all) = self.0.lock()
            && all.len() < 50
        {
            all.push(text);
        }
    }
}

struct FieldText<'a>(&'a mut String);

impl tracing::field::Visit for FieldText<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if !self.0.is_empty() {
            self.0.push_str(", ");
        }
        if field.name() == "message" {
            self.0.push_str(&format!("{value:?}"));
        } else {
            self.0.push_str(&format!("{}={value:?}", field.name()));
        }
    }
}

/// Runs the check with the configured connection settings: exit 0 when all is well, 1 when the
/// report lists problems, 2 when it could not start (bad configuration).
pub fn run(config: &Config, duration: Duration, spawn_timeout: Duration) -> std::process::ExitCode {
    let warnings = Arc::new(Mutex::new(Vec::new()));
    // Logs of the check itself go to stderr at warn level, and into the report.
    let subscriber = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_target(false)
                .with_filter(tracing_subscriber::filter::LevelFilter::WARN),
        )
        .with(Capture(warnings.clone()));
    let _guard = tracing::subscriber::set_default(subscriber);
    let settings = DoctorSettings {
        server: format!("{}:{}", config.host, config.port),
        duration,
        spawn_timeout,
        online: !config.offline,
        offline_login: config.offline_login(),
    };
    crate::cli::run_doctor_app(config, DoctorPlugin { settings, warnings })
}
