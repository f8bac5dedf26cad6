//! `TeamPlugin`: the bots of one process as a team, without the server.
//!
//! - [`channel`]: `team_say` — a bot (the request's `bot`) or the agent (no `bot`) tells every
//!   other bot of the process, or one (`to`); each recipient gets a typed [`TeamMessage`] (the
//!   `team` event, carrying the recipient as its `bot`). Nothing goes to the server's chat.
//!   Plugins send with the [`Team`] system parameter and read `MessageReader<TeamMessage>`.
//! - [`places`]: a small place book shared by the process — `remember` a named position (the
//!   addressed bot's by default), `places` (optionally nearest first from a bot), `forget`. Kept
//!   in a JSON file next to the skills store ([`TeamSettings::places`], `places.json` in
//!   `CLAWCRAFT_SKILLS_DIR` under the CLI), loaded at start-up, rewritten atomically on each
//!   change. Plugins read and change it through the [`PlaceBook`] resource.
//!
//! The plugin adds no system: commands do their work when they run, so an idle tick stays idle.

pub mod channel;
pub mod places;

use std::path::PathBuf;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use clawcraft_core::{AppCommandExt, AppEventExt, CorePlugin};

pub use channel::{MAX_TEXT_CHARS, Team, TeamMessage, TeamSay, TeamSayResponse};
pub use places::{Forget, MAX_PLACES, Place, PlaceBook, Places, Remember};

/// Where the place book lives.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct TeamSettings {
    /// The place book's file (`places.json` next to the skills store under the CLI); `None`
    /// keeps it in memory only.
    pub places: Option<PathBuf>,
}

impl TeamSettings {
    /// The place book in `places.json` of the skills directory, when there is one.
    pub fn next_to_skills(skills_dir: Option<&std::path::Path>) -> Self {
        Self { places: skills_dir.map(|d| d.join(places::FILE_NAME)) }
    }
}

/// The team channel and the place book.
pub struct TeamPlugin;

impl Plugin for TeamPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<CorePlugin>() {
            app.add_plugins(CorePlugin);
        }
        app.init_resource::<TeamSettings>()
            .add_agent_command::<TeamSay>()
            .add_agent_command::<Remember>()
            .add_agent_command::<Places>()
            .add_agent_command::<Forget>()
            .add_agent_event::<TeamMessage>();
    }

    /// Opens the place book once every setting is in (the CLI inserts [`TeamSettings`] after the
    /// plugins are added); a book inserted before (a test's) is kept.
    fn finish(&self, app: &mut App) {
        if app.world().contains_resource::<PlaceBook>() {
            return;
        }
        let book = match app.world().resource::<TeamSettings>().places.clone() {
            Some(path) => PlaceBook::open(path),
            None => PlaceBook::in_memory(),
        };
        app.insert_resource(book);
    }
}
