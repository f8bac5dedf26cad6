//! The end-to-end tests: the real binary against real peers (the Node `bedrock-protocol` peer of
//! `tests/peer`, SerenityJS), all on 127.0.0.1, one module per concern. The tests that measure the
//! process itself (`e2e_footprint`, `e2e_flood`) keep executables of their own so that no other
//! test of the same binary runs beside them.

#[path = "../common/mod.rs"]
mod common;

mod collect;
mod combat;
mod crafting;
mod farming;
mod faults;
mod inline_net;
mod interact;
mod io_process;
mod kubernetes_manifests;
mod living;
mod login;
mod map;
mod map_browser;
mod mcp;
mod online;
mod ranged;
mod seed_skills;
mod serenity;
mod server_truth;
mod skills;
mod swarm;
mod trading;
mod versions;
mod view;
mod wait;
mod walk;
mod world;
mod writing;
