//! `breed`, `milk` and `shear`: the right item in the hand (the animal's food, a bucket,
//! shears), an `item_use_on_entity` interact transaction with an arm swing for each animal, as a
//! real client sends them; the receipt is what the server showed:
//!
//! - `breed_done`: both animals fed — the server's `inlove` flag (or its love particles) on
//!   each — and the baby it spawned (an AddEntity of the same kind).
//! - `milk_done`: the held bucket became a milk bucket (the inventory change).
//! - `shear_done`: the server's `sheared` flag on the sheep and the wool that dropped.
//!
//! Foods are the game's (minecraft.wiki "Breeding"): wheat for cows, mooshrooms, sheep and goats;
//! carrots, potatoes or beetroot for pigs; seeds for chickens; …

use bevy_ecs::prelude::*;
use bevy_ecs::world::EntityRef;
use clawcraft_core::{
    ActionSlot, ActionStatus, AgentCommand, AsyncAction, AsyncInfo, CommandCtx, CommandError, EYE_HEIGHT, EndActionExt,
    EntityIds, Outcome, Position, TickCount, Vec3,
};
use clawcraft_entity::{EntityKind, EntityPosition, ItemEntity, SeenBy, WorldEntity};
use clawcraft_interact::common::{
    ATTACK_REACH, EntityClick, Ready, click_entity, hand_free, hold_item, inventory, job_outcome, turn_to,
};
use clawcraft_interact::use_slot::{ItemCount, USE_SLOT};
use clawcraft_inventory::{Inventory, InventoryJobs};
use clawcraft_network::{ClientboundPacket, Connection};
use clawcraft_protocol::codec::Value as WireValue;
use clawcraft_protocol::packets::{AddEntity, EntityEvent, SetEntityData};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use clawcraft_core::bare_name;

/// Ticks to wait for the server's answer to a use.
const CONFIRM_TICKS: u64 = 20;
/// Ticks to wait for the baby once both parents are in love (vanilla: the pair meet first).
const BABY_TICKS: u64 = 120;
/// Ticks to wait for an item swapped in from the main inventory.
const EQUIP_TICKS: u64 = 60;

/// What an animal eats to breed.
pub fn breeding_food(animal: &str) -> &'static [&'static str] {
    match bare_name(animal) {
        "cow" | "mooshroom" | "sheep" | "goat" => &["wheat"],
        "pig" => &["carrot", "potato", "beetroot"],
        "chicken" => &["wheat_seeds", "pumpkin_seeds", "melon_seeds", "beetroot_seeds", "torchflower_seeds"],
        "rabbit" => &["carrot", "golden_carrot", "dandelion"],
        "horse" | "donkey" => &["golden_carrot", "golden_apple"],
        "llama" | "trader_llama" => &["hay_block"],
        "wolf" => &["cooked_beef", "beef", "cooked_porkchop", "porkchop", "cooked_chicken", "chicken"],
        "cat" | "ocelot" => &["cod", "salmon"],
        "turtle" => &["seagrass"],
        "panda" => &["bamboo"],
        "fox" => &["sweet_berries", "glow_berries"],
        "bee" => &["dandelion", "poppy"],
        "hoglin" => &["crimson_fungus"],
        "strider" => &["warped_fungus"],
        "frog" => &["slime_ball"],
        "camel" => &["cactus"],
        "armadillo" => &["spider_eye"],
        "axolotl" => &["tropical_fish_bucket"],
        _ => &[],
    }
}

/// An animal the action works on.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Animal {
    pub name: String,
    pub runtime_id: u64,
    pub distance: f64,
}

/// A dropped item seen near the animal.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
pub struct Drop {
    pub name: String,
    pub count: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Equipping(u64),
    /// The next animal to use the item on.
    Use(usize),
    /// Every use sent; the last at this tick.
    Sent(u64),
}

/// The three animal actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Breed,
    Milk,
    Shear,
}

/// What the three share: the animals, the item, and what the server showed.
#[derive(Debug, Clone)]
pub struct Husbandry {
    pub animals: Vec<Animal>,
    identifier: String,
    points: Vec<Vec3>,
    pub item: String,
    pub count: ItemCount,
    /// The item held after (a milk bucket).
    pub held_after: Option<String>,
    /// Animals the server put in love (runtime ids).
    pub in_love: Vec<u64>,
    /// The baby the server spawned.
    pub baby: Option<u64>,
    pub sheared: bool,
    pub drops: Vec<Drop>,
    preexisting: Vec<u64>,
    started: u64,
    phase: Phase,
    /// When both animals were in love.
    love_at: Option<u64>,
}

impl Husbandry {
    fn confirmed(&self, kind: Kind) -> bool {
        match kind {
            Kind::Breed => self.in_love.len() >= 2 && self.baby.is_some(),
            Kind::Milk => self.held_after.as_deref().is_some_and(|h| bare_name(h) == "milk_bucket"),
            Kind::Shear => self.sheared || !self.drops.is_empty(),
        }
    }
}

/// An animal action's component.
pub trait Husbanding: Component<Mutability = bevy_ecs::component::Mutable> + AsyncAction {
    const KIND: Kind;
    fn inner(&mut self) -> &mut Husbandry;
}

/// `breed_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BreedDone {
    /// The two animals fed.
    pub animals: Vec<Animal>,
    pub item: String,
    /// The animals the server showed in love (runtime ids).
    pub in_love: Vec<u64>,
    /// The baby's runtime id (null when none appeared).
    pub baby: Option<u64>,
    /// True when both were in love and the baby appeared.
    pub confirmed: bool,
    pub item_count: ItemCount,
}
clawcraft_core::evidence!(
    BreedDone,
    "breed_done",
    "A breed ended: confirmed when the server showed both animals in love and the baby it spawned; failed not_in_love / no_baby otherwise"
);

/// `milk_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MilkDone {
    pub animals: Vec<Animal>,
    pub item: String,
    /// What the hand holds after (the server's inventory change).
    pub held_after: Option<String>,
    /// True when the bucket became a milk bucket.
    pub confirmed: bool,
}
clawcraft_core::evidence!(
    MilkDone,
    "milk_done",
    "A milk ended: confirmed when the server turned the held bucket into a milk bucket; failed no_change otherwise"
);

/// `shear_done`.
#[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ShearDone {
    pub animals: Vec<Animal>,
    pub item: String,
    /// The server's `sheared` flag on the sheep.
    pub sheared: bool,
    /// Items that dropped near it.
    pub drops: Vec<Drop>,
    pub confirmed: bool,
}
clawcraft_core::evidence!(
    ShearDone,
    "shear_done",
    "A shear ended: confirmed by the server's sheared flag on the sheep or the wool it dropped; failed no_change otherwise"
);

macro_rules! husbanding {
    ($comp:ident, $kind:expr, $done:ident, |$h:ident| $body:expr) => {
        /// The running action.
        #[derive(Component, Debug, Clone)]
        pub struct $comp(pub Husbandry);

        impl AsyncAction for $comp {
            const SLOT: ActionSlot = USE_SLOT;
            type Evidence = $done;
            fn evidence(&self, _outcome: &Outcome, _bot: EntityRef<'_>) -> $done {
                let $h = &self.0;
                $body
            }
        }

        impl Husbanding for $comp {
            const KIND: Kind = $kind;
            fn inner(&mut self) -> &mut Husbandry {
                &mut self.0
            }
        }
    };
}

husbanding!(Breeding, Kind::Breed, BreedDone, |h| BreedDone {
    animals: h.animals.clone(),
    item: h.item.clone(),
    in_love: h.in_love.clone(),
    baby: h.baby,
    confirmed: h.confirmed(Kind::Breed),
    item_count: h.count,
});
husbanding!(Milking, Kind::Milk, MilkDone, |h| MilkDone {
    animals: h.animals.clone(),
    item: h.item.clone(),
    held_after: h.held_after.clone(),
    confirmed: h.confirmed(Kind::Milk),
});
husbanding!(Shearing, Kind::Shear, ShearDone, |h| ShearDone {
    animals: h.animals.clone(),
    item: h.item.clone(),
    sheared: h.sheared,
    drops: h.drops.clone(),
    confirmed: h.confirmed(Kind::Shear),
});

/// An animal to act on.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnimalTarget {
    /// The animal's kind (`cow`, `minecraft:sheep`) or runtime id; default `cow` for `milk`,
    /// `sheep` for `shear` (`breed` needs it).
    pub entity: Option<serde_json::Value>,
    /// The item to use (default: the animal's food, a bucket, shears).
    pub item: Option<String>,
}

/// Response of `breed`, `milk` and `shear`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnimalResponse {
    /// True: the use is on its way (the verdict is the `*_done` receipt).
    pub started: bool,
    pub item: String,
    /// The animals it goes to, nearest first.
    pub animals: Vec<Animal>,
}

/// Animals of the bot in reach matching `entity` (kind or runtime id), nearest first.
fn animals_in_reach(
    ctx: &mut CommandCtx<'_>,
    entity: &serde_json::Value,
) -> Result<Vec<(Animal, String, Vec3)>, CommandError> {
    let feet = ctx.world.get::<Position>(ctx.bot).ok_or_else(CommandError::not_spawned)?.0;
    let by_id = match entity {
        serde_json::Value::Number(n) => {
            Some(n.as_u64().ok_or_else(|| CommandError::invalid_params("entity id must be a runtime id"))?)
        }
        serde_json::Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => return Err(CommandError::invalid_params("entity must be a kind or a runtime id")),
    };
    let query = entity.as_str().map(|s| bare_name(s.trim()).to_ascii_lowercase()).unwrap_or_default();
    let bot = ctx.bot;
    let mut q = ctx.world.query::<(&SeenBy, &WorldEntity, &EntityPosition, &EntityKind)>();
    let mut found: Vec<(Animal, String, Vec3)> = q
        .iter(ctx.world)
        .filter(|(seen, w, _, kind)| {
            seen.0 == bot
                && match by_id {
                    Some(id) => w.runtime_id == id,
                    None => kind.name.eq_ignore_ascii_case(&query),
                }
        })
        .map(|(_, w, p, kind)| {
            let distance = (p.0.distance(feet) * 100.0).round() / 100.0;
            (Animal { name: kind.name.clone(), runtime_id: w.runtime_id, distance }, kind.identifier.clone(), p.0)
        })
        .collect();
    found.sort_by(|a, b| a.0.distance.total_cmp(&b.0.distance));
    if found.is_empty() {
        return Err(CommandError::new("NOT_FOUND", "Entity not found"));
    }
    let near: Vec<_> = found.iter().filter(|a| a.0.distance <= ATTACK_REACH).cloned().collect();
    if near.is_empty() {
        return Err(CommandError::new(
            "OUT_OF_REACH",
            format!(
                "the nearest {} is {} blocks away; reach is {ATTACK_REACH} (walk closer first)",
                found[0].0.name, found[0].0.distance
            ),
        ));
    }
    Ok(near)
}

fn start<A: Husbanding>(
    ctx: &mut CommandCtx<'_>,
    command: &'static str,
    t: &AnimalTarget,
    wrap: fn(Husbandry) -> A,
) -> Result<AnimalResponse, CommandError> {
    hand_free(ctx)?;
    inventory(ctx)?;
    let entity = match (&t.entity, A::KIND) {
        (Some(e), _) => e.clone(),
        (None, Kind::Milk) => "cow".into(),
        (None, Kind::Shear) => "sheep".into(),
        (None, Kind::Breed) => return Err(CommandError::invalid_params("breed needs entity (cow, sheep, pig, …)")),
    };
    let mut near = animals_in_reach(ctx, &entity)?;
    let kind_name = near[0].0.name.clone();
    let wanted: Vec<&str> = match (&t.item, A::KIND) {
        (Some(i), _) => vec![i.as_str()],
        (None, Kind::Breed) => breeding_food(&kind_name).to_vec(),
        (None, Kind::Milk) => vec!["bucket"],
        (None, Kind::Shear) => vec!["shears"],
    };
    if wanted.is_empty() {
        return Err(CommandError::new("INVALID_TARGET", format!("{kind_name} does not breed with food")));
    }
    match A::KIND {
        Kind::Breed => {
            if near.len() < 2 {
                return Err(CommandError::new("NOT_FOUND", format!("breeding needs two {kind_name} in reach; one is")));
            }
            near.truncate(2);
        }
        Kind::Milk if !matches!(bare_name(&kind_name), "cow" | "mooshroom" | "goat") => {
            return Err(CommandError::new("INVALID_TARGET", format!("a {kind_name} gives no milk")));
        }
        Kind::Shear
            if bare_name(&kind_name) != "sheep"
                && bare_name(&kind_name) != "mooshroom"
                && bare_name(&kind_name) != "snow_golem" =>
        {
            return Err(CommandError::new("INVALID_TARGET", format!("shears do nothing to a {kind_name}")));
        }
        _ => near.truncate(1),
    }
    let inv = inventory(ctx)?;
    let item = wanted
        .iter()
        .find_map(|w| inv.indexed().find(|(_, it)| it.is_named(w)).map(|(_, it)| it.name.to_string()))
        .ok_or_else(|| CommandError::new("NO_ITEM", format!("No {} in the inventory", wanted.join(" or "))))?;
    let preexisting = {
        let bot = ctx.bot;
        let mut q = ctx.world.query::<(&SeenBy, &WorldEntity, &ItemEntity)>();
        q.iter(ctx.world).filter(|(s, ..)| s.0 == bot).map(|(_, w, _)| w.runtime_id).collect()
    };
    let ready = hold_item(ctx, &item)?;
    let points: Vec<Vec3> = near.iter().map(|(_, _, p)| p.offset_y(0.5)).collect();
    turn_to(ctx.world, ctx.bot, points[0]);
    let now = ctx.world.get_resource::<TickCount>().map_or(0, |t| t.0);
    let animals: Vec<Animal> = near.iter().map(|(a, ..)| a.clone()).collect();
    let h = Husbandry {
        animals: animals.clone(),
        identifier: near[0].1.clone(),
        points,
        item: item.clone(),
        count: ItemCount::default(),
        held_after: None,
        in_love: Vec::new(),
        baby: None,
        sheared: false,
        drops: Vec::new(),
        preexisting,
        started: now,
        phase: match ready {
            Ready::Now => Phase::Use(0),
            Ready::Job(j) => Phase::Equipping(j),
        },
        love_at: None,
    };
    let timeout = EQUIP_TICKS + BABY_TICKS + 60;
    ctx.start(command, wrap(h), timeout)?;
    Ok(AnimalResponse { started: true, item, animals })
}

/// `breed`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Breed(pub AnimalTarget);

/// `milk`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Milk(pub AnimalTarget);

/// `shear`.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Shear(pub AnimalTarget);

impl AgentCommand for Breed {
    const NAME: &'static str = "breed";
    const SUMMARY: &'static str = "Feed the two nearest animals of a kind (entity) in reach with their food; async, ends in breed_done when the server showed both in love and the baby it spawned";
    const EXAMPLE: &'static str = r#"{"action":"breed","entity":"cow"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Breeding>());
    type Response = AnimalResponse;
    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<AnimalResponse, CommandError> {
        start(ctx, Self::NAME, &self.0, Breeding)
    }
}

impl AgentCommand for Milk {
    const NAME: &'static str = "milk";
    const SUMMARY: &'static str = "Milk the nearest cow (or entity) in reach with a bucket; async, ends in milk_done when the server turned the bucket into a milk bucket";
    const EXAMPLE: &'static str = r#"{"action":"milk","entity":"cow"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Milking>());
    type Response = AnimalResponse;
    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<AnimalResponse, CommandError> {
        start(ctx, Self::NAME, &self.0, Milking)
    }
}

impl AgentCommand for Shear {
    const NAME: &'static str = "shear";
    const SUMMARY: &'static str = "Shear the nearest sheep (or entity) in reach with shears; async, ends in shear_done with the server's sheared flag and the wool that dropped";
    const EXAMPLE: &'static str = r#"{"action":"shear","entity":"sheep"}"#;
    const ASYNC: Option<AsyncInfo> = Some(AsyncInfo::of::<Shearing>());
    type Response = AnimalResponse;
    fn run(self, ctx: &mut CommandCtx<'_>) -> Result<AnimalResponse, CommandError> {
        start(ctx, Self::NAME, &self.0, Shearing)
    }
}

/// The value of metadata flag `flag` in `data`'s `flags`, if it says.
fn flag(data: &SetEntityData, name: &str) -> Option<bool> {
    data.metadata.iter().filter(|e| e.key == "flags").find_map(|e| match e.value.get(name) {
        Some(WireValue::Bool(b)) => Some(*b),
        _ => None,
    })
}

/// Uses the item on each animal, then records what the server showed.
#[allow(clippy::type_complexity)]
pub fn step_husbandry<A: Husbanding>(
    mut commands: Commands,
    mut packets: MessageReader<ClientboundPacket>,
    mut bots: Query<(Entity, &mut A, &Inventory, &InventoryJobs, &mut Connection, &EntityIds, &Position)>,
    items: Query<(&SeenBy, &WorldEntity, &EntityPosition, &ItemEntity)>,
    ticks: Res<TickCount>,
) {
    let now = ticks.0;
    for pkt in packets.read() {
        let Ok((_, mut a, ..)) = bots.get_mut(pkt.bot) else { continue };
        let h = a.inner();
        if matches!(h.phase, Phase::Equipping(_)) {
            continue;
        }
        let ours = |id: u64| h.animals.iter().any(|x| x.runtime_id == id);
        if let Some(d) = pkt.view::<SetEntityData>() {
            if ours(d.runtime_entity_id) {
                if flag(&d, "inlove") == Some(true) && !h.in_love.contains(&d.runtime_entity_id) {
                    h.in_love.push(d.runtime_entity_id);
                }
                if flag(&d, "sheared") == Some(true) {
                    h.sheared = true;
                }
            }
        } else if let Some(e) = pkt.view::<EntityEvent>() {
            if ours(e.runtime_entity_id) && e.event_id == "love_particles" && !h.in_love.contains(&e.runtime_entity_id)
            {
                h.in_love.push(e.runtime_entity_id);
            }
        } else if let Some(add) = pkt.view::<AddEntity>()
            && A::KIND == Kind::Breed
            && add.entity_type == h.identifier
            && h.in_love.len() >= 2
            && !ours(add.runtime_id)
        {
            h.baby.get_or_insert(add.runtime_id);
        }
    }
    for (bot, mut a, inv, jobs, mut conn, ids, pos) in &mut bots {
        let h = a.inner();
        match h.phase {
            Phase::Equipping(job) => match job_outcome(jobs, job) {
                Some(Ok(())) => h.phase = Phase::Use(0),
                Some(Err(why)) => commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some(why)),
                None if now > h.started + EQUIP_TICKS => {
                    commands.end_action(bot, USE_SLOT.name, ActionStatus::Failed, Some("item swap unanswered".into()));
                }
                None => {}
            },
            Phase::Use(i) => {
                if i == 0 {
                    h.count.before = inv.held().map_or(0, |x| x.count);
                }
                let point = h.points[i];
                let (eye, target) = (pos.0.offset_y(EYE_HEIGHT), h.animals[i].runtime_id);
                click_entity(&mut conn, ids.runtime_id, Some(inv), eye, target, point, EntityClick::Interact);
                // One animal per tick, as a player turns from one to the next.
                h.phase = if i + 1 < h.animals.len() { Phase::Use(i + 1) } else { Phase::Sent(now) };
            }
            Phase::Sent(at) => {
                h.count.after = inv.held().map_or(0, |x| x.count);
                let held = inv.held().map(|x| x.name.to_string());
                if held.as_deref() != Some(h.item.as_str()) {
                    h.held_after = held;
                }
                if A::KIND == Kind::Shear {
                    let around = h.points[0];
                    for (seen, w, p, item) in &items {
                        if seen.0 == bot && !h.preexisting.contains(&w.runtime_id) && p.0.distance(around) <= 3.0 {
                            h.preexisting.push(w.runtime_id);
                            h.drops.push(Drop { name: item.name.clone(), count: item.count });
                        }
                    }
                }
                if h.in_love.len() >= 2 {
                    h.love_at.get_or_insert(now);
                }
                let settled = now >= at + 5;
                let (end, status, reason): (bool, ActionStatus, Option<String>) = match A::KIND {
                    Kind::Breed if h.confirmed(Kind::Breed) => (true, ActionStatus::Done, None),
                    Kind::Breed if h.love_at.is_some_and(|l| now >= l + BABY_TICKS) => {
                        (true, ActionStatus::Failed, Some("no_baby".into()))
                    }
                    Kind::Breed if h.love_at.is_none() && now >= at + CONFIRM_TICKS => {
                        (true, ActionStatus::Failed, Some("not_in_love".into()))
                    }
                    Kind::Milk | Kind::Shear if h.confirmed(A::KIND) && settled => (true, ActionStatus::Done, None),
                    Kind::Milk | Kind::Shear if now >= at + CONFIRM_TICKS => {
                        (true, ActionStatus::Failed, Some("no_change".into()))
                    }
                    _ => (false, ActionStatus::Done, None),
                };
                if end {
                    commands.end_action(bot, USE_SLOT.name, status, reason);
                }
            }
        }
    }
}
