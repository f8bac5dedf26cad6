//! The simulation tests: the app stepped tick by tick through `App::update` with packets injected
//! as encoded bytes (no sockets), one module per concern. One test executable instead of one per
//! file: every executable links the whole app, so fewer of them build faster and take less disk.

#[path = "../common/mod.rs"]
mod common;

mod actions;
mod answers;
mod basics;
mod chat;
mod collect;
mod combat;
mod commands;
mod containers;
mod contract;
mod entities;
mod events_file;
mod example_come_here;
mod example_team;
mod farming;
mod fuzz_app;
mod interact;
mod inventory;
mod movement;
mod queries;
mod quiet;
mod refusals;
mod settled;
mod shared_world;
mod skills;
mod stop;
mod swarm;
mod team;
mod trading;
mod view;
mod vitals;
mod wait;
mod walk;
mod walk_goals;
mod walk_world;
mod world;
