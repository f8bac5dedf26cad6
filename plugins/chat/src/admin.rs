//! The `SEND_CMD` admin tool (ClawCraft's way to run console commands, e.g.
//! `docker exec mc send-command`): `SEND_CMD` is split on whitespace into a program and its
//! arguments, the command is appended as **one** more argument, and it runs without a shell on
//! its own thread, killed after [`ChatSettings::send_cmd_timeout`]. Its result arrives as
//! `cmd_output{external:true}`.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_ecs::prelude::*;
use clawcraft_core::{AgentEvent, CommandCtx, CommandError, CommandResponse, CommandWaker, DeferredReply};
use crossbeam_channel::{Receiver, Sender};

use crate::ChatSettings;
use crate::incoming::CmdOutput;

/// What a finished run reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalResult {
    /// Where the response goes (and the request id).
    /// The bot whose `cmd` it is.
    pub bot: Entity,
    pub reply: DeferredReply,
    pub command: String,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    /// The program could not be started.
    pub spawn_error: Option<String>,
}

/// Finished runs, sent from their threads.
#[derive(Resource)]
pub struct ExternalRuns {
    tx: Sender<ExternalResult>,
    rx: Receiver<ExternalResult>,
}

impl Default for ExternalRuns {
    fn default() -> Self {
        let (tx, rx) = crossbeam_channel::unbounded();
        Self { tx, rx }
    }
}

/// Splits `SEND_CMD` into program + arguments and appends the command as a single argument.
pub fn argv(send_cmd: &str, command: &str) -> Option<(String, Vec<String>)> {
    let mut parts = send_cmd.split_whitespace().map(str::to_owned);
    let program = parts.next()?;
    let mut args: Vec<String> = parts.collect();
    args.push(command.to_owned());
    Some((program, args))
}

/// Runs `program args…` with a time limit, capturing output. Blocking: call it off the tick.
pub fn run(program: &str, args: &[String], timeout: Duration) -> (Option<i32>, bool, String, String, Option<String>) {
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return (None, false, String::new(), String::new(), Some(e.to_string())),
    };
    // Readers on their own threads so a chatty program cannot block on a full pipe; after a
    // kill we take whatever they gathered instead of waiting on grandchildren holding the pipe.
    let collect = |pipe: Option<Box<dyn Read + Send>>| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let b = buf.clone();
        let handle = pipe.map(|mut p| {
            std::thread::spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(n) = p.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    b.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&chunk[..n]);
                }
            })
        });
        (buf, handle)
    };
    let (out, out_h) = collect(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let (err, err_h) = collect(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let (code, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (status.code(), false),
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break (None, true);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => break (None, false),
        }
    };
    if !timed_out {
        for h in [out_h, err_h].into_iter().flatten() {
            let _ = h.join();
        }
    }
    let text =
        |b: &Arc<Mutex<Vec<u8>>>| String::from_utf8_lossy(&b.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    (code, timed_out, text(&out), text(&err), None)
}

/// Starts a SEND_CMD run for the `cmd` in `ctx`; returns the command as passed.
pub fn start(ctx: &mut CommandCtx<'_>, raw: &str) -> Result<String, CommandError> {
    let settings = ctx.world.get_resource::<ChatSettings>().cloned().unwrap_or_default();
    let Some(send_cmd) = settings.send_cmd.filter(|s| !s.trim().is_empty()) else {
        return Err(CommandError::new("NOT_CONFIGURED", "No SEND_CMD configured"));
    };
    // Console commands take no leading slash.
    let command: String = raw.trim().trim_start_matches('/').chars().filter(|c| !c.is_control()).collect();
    if command.is_empty() {
        return Err(CommandError::invalid_params("cmd must not be empty"));
    }
    let (program, args) =
        argv(&send_cmd, &command).ok_or_else(|| CommandError::new("NOT_CONFIGURED", "SEND_CMD is empty"))?;
    let tx = ctx.world.get_resource_or_init::<ExternalRuns>().tx.clone();
    // The finished run wakes the runner, so the tick that collects it is a busy one.
    let waker = ctx.world.get_resource::<CommandWaker>().cloned();
    let reply = ctx.defer();
    let bot = ctx.bot;
    let cmd = command.clone();
    let timeout = settings.send_cmd_timeout;
    std::thread::Builder::new()
        .name("send-cmd".into())
        .spawn(move || {
            let (exit_code, timed_out, stdout, stderr, spawn_error) = run(&program, &args, timeout);
            let _ =
                tx.send(ExternalResult { bot, reply, command: cmd, exit_code, timed_out, stdout, stderr, spawn_error });
            if let Some(waker) = waker {
                waker.wake();
            }
        })
        .map_err(CommandError::internal)?;
    Ok(command)
}

/// Run condition of [`collect_external_runs`]: a `SEND_CMD` run has finished.
pub fn external_results_waiting(runs: Res<ExternalRuns>) -> bool {
    runs.finished()
}

impl ExternalRuns {
    /// Some run finished and waits to be collected.
    pub fn finished(&self) -> bool {
        !self.rx.is_empty()
    }
}

/// Turns finished runs into the deferred `cmd` responses and `cmd_output` events.
pub fn collect_external_runs(
    runs: Res<ExternalRuns>,
    mut events: MessageWriter<AgentEvent>,
    mut responses: MessageWriter<CommandResponse>,
) {
    for r in runs.rx.try_iter() {
        if let Some(e) = &r.spawn_error {
            tracing::info!(error = %e, "SEND_CMD could not start");
        }
        let mut messages: Vec<String> = r
            .stdout
            .lines()
            .chain(r.stderr.lines())
            .map(|l| crate::text::sanitize(l, crate::text::MAX_MESSAGE_CHARS))
            .filter(|l| !l.is_empty())
            .collect();
        if let Some(e) = r.spawn_error {
            messages.push(format!("failed to start SEND_CMD: {e}"));
        }
        if r.timed_out {
            messages.push("killed: SEND_CMD took too long".into());
        }
        let result = CmdOutput {
            bot: r.bot,
            id: r.reply.id.clone(),
            command: r.command,
            success: r.exit_code == Some(0),
            success_count: u32::from(r.exit_code == Some(0)),
            messages,
            external: true,
            exit_code: r.exit_code,
            timed_out: r.timed_out,
            ..CmdOutput::empty(r.bot)
        };
        events.write(AgentEvent::new(result.clone()));
        responses.write(r.reply.respond(Ok(result)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_appends_the_command_as_one_argument() {
        let (p, a) = argv("docker exec mc send-command", "say hi; rm -rf /").expect("argv");
        assert_eq!(p, "docker");
        assert_eq!(a, vec!["exec", "mc", "send-command", "say hi; rm -rf /"]);
        assert!(argv("   ", "x").is_none());
    }
}
