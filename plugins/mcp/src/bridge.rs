//! The channels between the game loop and the MCP thread: the only place the two meet.

use std::sync::Arc;

use clawcraft_core::{CommandRequest, CommandWaker, Origin};
use clawcraft_io::StampedEvent;
use crossbeam_channel::{Receiver, Sender};

/// From the MCP thread to the game loop.
#[derive(Debug)]
pub enum FromMcp {
    /// A tool call or resource read, as a command.
    Request(CommandRequest),
    /// The stdio client went away.
    StdioClosed,
}

/// One output pass for the MCP thread: responses to MCP origins, and every event of the pass.
#[derive(Debug)]
pub struct ToMcp {
    pub responses: Vec<(Origin, Arc<str>)>,
    pub events: Arc<[StampedEvent]>,
}

/// The game loop's sending end (never blocks: the MCP thread drains it as it comes).
pub struct ToMcpSender(tokio::sync::mpsc::UnboundedSender<ToMcp>);

impl ToMcpSender {
    pub fn send(&self, out: ToMcp) {
        // The MCP thread is gone only when the process is ending.
        let _ = self.0.send(out);
    }
}

/// The MCP thread's ends.
pub struct GameSide {
    pub requests: Sender<FromMcp>,
    pub waker: CommandWaker,
    pub output: tokio::sync::mpsc::UnboundedReceiver<ToMcp>,
}

/// Creates both ends.
pub fn channels(waker: CommandWaker) -> (GameSide, Receiver<FromMcp>, ToMcpSender) {
    // Unbounded, but bounded in fact: every queued request is an MCP call that waits for its
    // answer, and the MCP transports bound how many calls a client may have open.
    let (requests, from_mcp) = crossbeam_channel::unbounded();
    let (to_mcp, output) = tokio::sync::mpsc::unbounded_channel();
    (GameSide { requests, waker, output }, from_mcp, ToMcpSender(to_mcp))
}
